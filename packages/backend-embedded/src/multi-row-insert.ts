/**
 * An INSERT that takes rows one at a time and writes them many a statement
 * (`INSERT ... VALUES (?, ?), (?, ?), ...`), as write steps (write-steps.ts): each statement run
 * costs a call into the driver and a VDBE start and reset, which in a bulk write's per-row inserts
 * came to about as much as writing the row itself. Rows go in the order added, so rowids and stored
 * data are those of one statement a row.
 */
import type { WriteStep } from "./write-steps";

/** Rows a statement at most: large enough that the per-statement cost vanishes, far below SQLite's bound on parameters. */
const ROWS_PER_STATEMENT = 64;

export class MultiRowInsert {
  /** The statement's SQL for each number of rows met so far. */
  private readonly sql = new Map<number, string>();
  private values: unknown[] = [];
  private readonly done: WriteStep[] = [];

  /** `into`: "table (column, ...)", `width` values a row; `row`: a row's values in SQL, `width` parameters (plain ones by default). */
  constructor(
    private readonly into: string,
    private readonly width: number,
    private readonly row = `(${Array(width).fill("?").join(", ")})`,
  ) {}

  add(...row: unknown[]): void {
    if (row.length !== this.width) throw new Error(`a row of ${this.into} has ${this.width} values, not ${row.length}`);
    for (const value of row) this.values.push(value);
    if (this.values.length === this.width * ROWS_PER_STATEMENT) this.flush();
  }

  /** The statements of every row added, and a fresh start. */
  takeSteps(): WriteStep[] {
    this.flush();
    return this.done.splice(0);
  }

  private flush(): void {
    if (this.values.length === 0) return;
    this.done.push({ sql: this.sqlFor(this.values.length / this.width), params: this.values });
    this.values = [];
  }

  private sqlFor(rows: number): string {
    let sql = this.sql.get(rows);
    if (!sql) {
      sql = `INSERT INTO ${this.into} VALUES ${Array(rows).fill(this.row).join(", ")}`;
      this.sql.set(rows, sql);
    }
    return sql;
  }
}

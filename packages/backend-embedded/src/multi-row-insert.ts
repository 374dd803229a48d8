/**
 * An INSERT that takes rows one at a time and writes them many a statement
 * (`INSERT ... VALUES (?, ?), (?, ?), ...`): each statement run costs a call into the driver and a
 * VDBE start and reset, which in a bulk write's per-row inserts came to about as much as writing
 * the row itself. Rows go in the order added, so rowids and stored data are those of one statement
 * a row. Rows added are written at the latest by flush(): the caller flushes before anything that
 * must see them (a delete, the end of its transaction), and discards them when its transaction fails.
 */
import type { Statement } from "better-sqlite3";
import type { Db } from "./database";

/** Rows a statement at most: large enough that the per-statement cost vanishes, far below SQLite's bound on parameters. */
const ROWS_PER_STATEMENT = 64;

export class MultiRowInsert {
  /** The statement for each number of rows met so far. */
  private readonly statements = new Map<number, Statement>();
  private values: unknown[] = [];

  /** `into`: "table (column, ...)", `width` columns; `parent`: the insert of the rows these reference, written first. */
  constructor(
    private readonly db: Db,
    private readonly into: string,
    private readonly width: number,
    private readonly parent: MultiRowInsert | null = null,
  ) {}

  add(...row: unknown[]): void {
    if (row.length !== this.width) throw new Error(`a row of ${this.into} has ${this.width} values, not ${row.length}`);
    for (const value of row) this.values.push(value);
    if (this.values.length === this.width * ROWS_PER_STATEMENT) this.flush();
  }

  flush(): void {
    if (this.values.length === 0) return;
    this.parent?.flush();
    const values = this.values;
    this.values = [];
    this.statementFor(values.length / this.width).run(values);
  }

  /** Forgets rows not written: after a failed write, whose transaction rolled back. */
  discard(): void {
    this.values = [];
  }

  private statementFor(rows: number): Statement {
    let statement = this.statements.get(rows);
    if (!statement) {
      const row = `(${Array(this.width).fill("?").join(", ")})`;
      statement = this.db.prepare(`INSERT INTO ${this.into} VALUES ${Array(rows).fill(row).join(", ")}`);
      this.statements.set(rows, statement);
    }
    return statement;
  }
}

/**
 * An export as CSV a spreadsheet opens as it should: a UTF-8 byte-order mark (Excel reads the file
 * as UTF-8 only with it), a header row, RFC 4180 records (CRLF line ends; a field holding a comma,
 * a quote or a line break is quoted, its quotes doubled: csv-stringify's rules), and no cell a
 * spreadsheet would run as a formula (OWASP "CSV injection": see `csvCell`).
 */
import { stringify } from "csv-stringify/sync";
import type { EntityType } from "../domain/metrics";
import type { ExportedItem } from "../schemas/collection-export";
import { ENTITY_SNAPSHOTS } from "../schemas/collections";

type Cell = string | number | null | undefined;
interface Column {
  name: string;
  value(row: ExportedItem): Cell;
}

/** What joins the values of a list field (tags, categories, investors) in one cell. */
export const LIST_SEPARATOR = "; ";
const BOM = "\uFEFF";
const CSV_OPTIONS = { record_delimiter: "\r\n", eof: true } as const;

const ITEM_COLUMNS: Column[] = [
  { name: "item_id", value: (row) => row.id },
  { name: "entity_type", value: (row) => row.entity_type },
  { name: "entity_id", value: (row) => row.entity_id },
  { name: "notes", value: (row) => row.notes },
  { name: "tags", value: (row) => row.tags.join(LIST_SEPARATOR) },
  { name: "created_at", value: (row) => row.created_at },
  { name: "updated_at", value: (row) => row.updated_at },
];

const hq = (row: ExportedItem) => row.organization?.location.headquarters ?? null;
const lastRound = (row: ExportedItem) => row.organization?.metrics.funding?.last_round ?? null;

/** The organization as it is now; every cell is empty when it no longer exists (organization_found false). */
const ORGANIZATION_COLUMNS: Column[] = [
  { name: "organization_found", value: (row) => String(row.organization != null) },
  { name: "name", value: (row) => row.organization?.name },
  { name: "domain", value: (row) => row.organization?.domain },
  { name: "website", value: (row) => row.organization?.contact.website },
  { name: "description", value: (row) => row.organization?.description },
  { name: "categories", value: (row) => row.organization?.categories.join(LIST_SEPARATOR) },
  { name: "hq_city", value: (row) => hq(row)?.city },
  { name: "hq_subdivision_code", value: (row) => hq(row)?.subdivision_code },
  { name: "hq_country_code", value: (row) => hq(row)?.country_code },
  { name: "employee_count", value: (row) => row.organization?.metrics.employee_count },
  { name: "employee_range", value: (row) => row.organization?.metrics.employee_range },
  { name: "founded_year", value: (row) => row.organization?.metrics.founded_year },
  { name: "last_round_stage", value: (row) => lastRound(row)?.stage },
  { name: "last_round_date", value: (row) => lastRound(row)?.announced_on },
  { name: "last_round_amount_usd", value: (row) => lastRound(row)?.amount_usd },
  { name: "total_raised_usd", value: (row) => row.organization?.metrics.funding?.total_raised_usd },
];

/** Other types: the fields of the type's snapshot, in the order its schema lists them. */
function snapshotColumns(type: Exclude<EntityType, "organization">): Column[] {
  return Object.keys(ENTITY_SNAPSHOTS[type].shape).map((field) => ({ name: field, value: (row) => snapshotCell(row.entity?.[field]) }));
}

function snapshotCell(value: unknown): Cell {
  if (value == null || typeof value === "number" || typeof value === "string") return value;
  if (Array.isArray(value)) return value.join(LIST_SEPARATOR);
  return JSON.stringify(value);
}

/** The columns of a collection of `type`, in order (an untyped collection holds no items: item columns only). */
export function csvColumns(type: EntityType | null): Column[] {
  if (type === null) return ITEM_COLUMNS;
  return [...ITEM_COLUMNS, ...(type === "organization" ? ORGANIZATION_COLUMNS : snapshotColumns(type))];
}

/** Text that starts like a formula (`=`, `+`, `-`, `@`, tab, carriage return) is prefixed with `'`, which spreadsheets show as text. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell's text: empty for no value; numbers as they are (the data holds no negative numbers); text made formula-safe. */
export function csvCell(value: Cell): string {
  if (value == null) return "";
  if (typeof value === "number") return String(value);
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** The file, chunk by chunk: the BOM and header, then one chunk of records per page of items. */
export async function* csvChunks(type: EntityType | null, pages: AsyncIterable<ExportedItem[]>): AsyncGenerator<string> {
  const columns = csvColumns(type);
  yield BOM + stringify([columns.map((column) => column.name)], CSV_OPTIONS);
  for await (const page of pages) {
    if (page.length > 0)
      yield stringify(
        page.map((row) => columns.map((column) => csvCell(column.value(row)))),
        CSV_OPTIONS,
      );
  }
}

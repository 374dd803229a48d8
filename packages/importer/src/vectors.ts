/**
 * Reads a vector computed elsewhere (bring your own embeddings) from a source value. The
 * dimension is not checked here: only the service knows the store's model.
 */
import { show, TransformError, type Value } from "./transforms";

/**
 * A list of numbers from a JSON array of numbers (or of numeric texts), or from a text holding
 * one (`"[0.12, -0.5, …]"`) or holding numbers separated by commas or spaces (`"0.12 -0.5 …"`,
 * as CSV files and numpy print them). Missing or empty: null. Throws TransformError otherwise.
 */
export function toVector(value: Value): number[] | null {
  if (value === null || value === undefined) return null;
  const items = typeof value === "string" ? itemsOfText(value) : value;
  if (!Array.isArray(items)) throw new TransformError(`expected a list of numbers, got ${show(value)}`);
  if (items.length === 0) return null;
  // A JSON array of numbers, as files mostly hold vectors, is taken as it is rather than copied.
  return items.every(Number.isFinite) ? (items as number[]) : items.map(vectorItem);
}

/** The items of `[1, 2, 3]`, `1,2,3` or `1 2 3`: the brackets are optional, commas and spaces both separate. */
function itemsOfText(text: string): string[] {
  const inner = text.trim().replace(/^\[(.*)\]$/s, "$1");
  return inner.split(/[\s,]+/).filter((item) => item !== "");
}

function vectorItem(item: unknown, index: number): number {
  const number = typeof item === "number" ? item : typeof item === "string" && item.trim() !== "" ? Number(item) : Number.NaN;
  // JSON reads 1e999 as Infinity, which show() would print as null
  if (!Number.isFinite(number)) throw new TransformError(`item ${index} is ${typeof item === "number" ? String(item) : show(item)}, not a finite number`);
  return number;
}

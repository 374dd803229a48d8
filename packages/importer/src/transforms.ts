/**
 * The named transforms a mapping can apply to a source value, in order.
 * "each" transforms apply to every item of a list (and leave null alone);
 * the others see the whole value.
 */
import { z } from "zod";
import { parseLocationText, toCountryCode, toSubdivisionCode } from "./location";

/** A value read from a source record or produced by a transform. */
export type Value = unknown;

/** A value a transform cannot convert: the row fails, or with on_invalid "null" the field is left empty. */
export class TransformError extends Error {
  override readonly name = "TransformError";
}

export interface TransformContext {
  /** The whole source record, for transforms that read a second field. */
  record: Record<string, unknown>;
}

interface TransformDef<A> {
  /** Schema of the argument; undefined when the transform takes none. */
  arg?: z.ZodType<A>;
  /** Whether the argument may be left out (`"split"` instead of `{"split": ","}`). */
  argOptional?: boolean;
  each: boolean;
  apply: (value: Value, arg: A | undefined, ctx: TransformContext) => Value;
  /** One line for error messages and the README. */
  summary: string;
}

const define = <A>(def: TransformDef<A>) => def;

/** Shows a value in a message, shortened. */
export function show(value: Value): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

const isEmpty = (value: Value) => value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0);

/** Whole number from a number or a numeric string ("1,200" -> 1200); throws otherwise. */
export function toInt(value: Value): number {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string") {
    const digits = value.replace(/[,_\s]/g, "");
    if (/^[+-]?\d+(?:\.0+)?$/.test(digits)) return Math.trunc(Number(digits));
  }
  throw new TransformError(`${show(value)} is not a whole number`);
}

const MULTIPLIERS: Record<string, number> = { k: 1e3, m: 1e6, mm: 1e6, b: 1e9, bn: 1e9 };

/** Number from a number or a string such as "12,000,000", "$12.5M", "3k"; throws otherwise. */
export function toNumber(value: Value): number {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string") {
    const text = value.replace(/[,_\s$€£¥]/g, "").replace(/^usd|usd$/i, "");
    const match = /^([+-]?\d+(?:\.\d+)?)(k|mm|m|bn|b)?$/i.exec(text);
    if (match) return Number(match[1]) * (match[2] ? (MULTIPLIERS[match[2].toLowerCase()] as number) : 1);
  }
  throw new TransformError(`${show(value)} is not a number`);
}

function requireText(value: Value, what: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  throw new TransformError(`expected text for ${what}, got ${show(value)}`);
}

/** "https://www.Acme.com/about" -> "acme.com"; also "acme.com", "info@acme.com". */
export function domainOf(text: string): string | null {
  let value = text.trim();
  const at = value.lastIndexOf("@");
  if (at >= 0 && !value.includes("/")) value = value.slice(at + 1);
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) value = `http://${value}`;
  try {
    const host = new URL(value).hostname
      .toLowerCase()
      .replace(/^www\d*\./, "")
      .replace(/\.$/, "");
    return /^(?=.{1,253}$)([a-z0-9_-]+\.)+[a-z0-9-]{2,}$/.test(host) ? host : null;
  } catch {
    return null;
  }
}

/** An absolute http(s) URL; a bare host ("acme.com/x") gets https://; anything else (a relative path) null. */
export function absoluteUrl(text: string): string | null {
  const value = text.trim();
  const candidate = /^https?:\/\//i.test(value) ? value : /^[a-z0-9-]+(\.[a-z0-9-]+)+(?::\d+)?(\/|$)/i.test(value) ? `https://${value}` : null;
  if (!candidate || /\s/.test(candidate)) return null;
  try {
    const url = new URL(candidate);
    return url.hostname.includes(".") ? candidate : null;
  } catch {
    return null;
  }
}

/** "2015-03-01", "2015/03/01", "2015-03-01T10:00:00Z" -> "2015-03-01"; throws otherwise. */
function toIsoDate(value: Value): string {
  if (typeof value === "string") {
    const match = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(value.trim());
    if (match) {
      const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
      const date = new Date(Date.UTC(year, month - 1, day));
      if (date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day) {
        return `${match[1]}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
      }
    }
  }
  throw new TransformError(`${show(value)} is not a date (expected YYYY-MM-DD)`);
}

function yearFromUnix(value: Value): number {
  const seconds = toNumber(value);
  // values beyond year 5138 in seconds are read as milliseconds
  const date = new Date(Math.abs(seconds) >= 1e11 ? seconds : seconds * 1000);
  if (Number.isNaN(date.getTime())) throw new TransformError(`${show(value)} is not a unix time`);
  return date.getUTCFullYear();
}

/** Each dot path's segments, split once: a path is read for every record (splitting it each time took about a sixth of mapping a row of the bench's file). */
const pathSegments = new Map<string, string[]>();

function getPath(record: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(record, path)) return record[path];
  let segments = pathSegments.get(path);
  if (!segments) {
    segments = path.split(".");
    pathSegments.set(path, segments);
  }
  let current: unknown = record;
  for (const segment of segments) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** Reads a source field by dot path ("hq.city", "locations.0"); a key that itself contains dots wins. */
export function readPath(record: Record<string, unknown>, path: string): Value {
  return cleanValue(getPath(record, path));
}

/** Trims text, turns "" into null and drops empty items of lists. */
export function cleanValue(value: unknown): Value {
  if (typeof value === "string") {
    const trimmed = value.trim();
    return trimmed === "" ? null : trimmed;
  }
  if (Array.isArray(value)) return value.every(isClean) ? value : value.map(cleanValue).filter((v) => !isEmpty(v));
  return value ?? null;
}

/** An item cleanValue keeps as it is: a list of numbers (a vector's 384 and more) is then not copied twice. */
const isClean = (item: unknown) => typeof item === "number" || typeof item === "boolean";

const lowerCaseKeys = new WeakMap<object, Map<string, unknown>>();
function lookup(table: Record<string, unknown>, value: Value): Value {
  const key = typeof value === "string" ? value : String(value);
  if (Object.hasOwn(table, key)) return table[key];
  let lower = lowerCaseKeys.get(table);
  if (!lower) {
    lower = new Map(Object.entries(table).map(([k, v]) => [k.trim().toLowerCase(), v]));
    lowerCaseKeys.set(table, lower);
  }
  return lower.get(key.trim().toLowerCase()) ?? null;
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

const JsonValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.union([z.string(), z.number()]))]);

export const TRANSFORMS = {
  int: define({
    each: true,
    apply: (v) => toInt(v),
    summary: 'whole number from a number or numeric text ("1,200" → 1200)',
  }),
  number: define({
    each: true,
    apply: (v) => toNumber(v),
    summary: 'number from a number or text such as "12,000,000", "$12.5M", "3k"',
  }),
  date: define({
    each: true,
    apply: (v) => toIsoDate(v),
    summary: 'ISO date YYYY-MM-DD from "2015-03-01", "2015/3/1" or an ISO date-time',
  }),
  year_from_unix: define({
    each: true,
    apply: (v) => yearFromUnix(v),
    summary: "UTC year of a unix time in seconds (or milliseconds)",
  }),
  country: define({
    each: true,
    apply: (v) => {
      const code = toCountryCode(requireText(v, "a country"));
      if (!code) throw new TransformError(`unknown country ${show(v)}`);
      return code;
    },
    summary: 'ISO 3166-1 alpha-2 from an English name, alpha-3 or alpha-2 ("United States of America", "DEU" → US, DE)',
  }),
  subdivision: define({
    arg: z.strictObject({ country_from: z.string().min(1) }),
    argOptional: true,
    each: true,
    apply: (v, arg, ctx) => {
      const countryText = arg ? readPath(ctx.record, arg.country_from) : null;
      const country = typeof countryText === "string" ? toCountryCode(countryText) : null;
      return typeof v === "string" || typeof v === "number" ? toSubdivisionCode(String(v), country) : null;
    },
    summary:
      'ISO 3166-2 code from a full code ("US-CA"), a US state / Canadian province (code or name), or, with `country_from`, a short code of that country ("NSW" in Australia → AU-NSW); null when not a known subdivision',
  }),
  location_text: define({
    each: true,
    apply: (v) => (typeof v === "string" ? parseLocationText(v) : null),
    summary: 'a place from free text "City, ST, Country" (see below); null for "Remote"',
  }),
  domain_from_url: define({
    each: true,
    apply: (v) => {
      const domain = domainOf(requireText(v, "a domain"));
      if (!domain) throw new TransformError(`cannot read a domain from ${show(v)}`);
      return domain;
    },
    summary: '"https://www.Acme.com/about" → "acme.com" (also bare hosts and e-mail addresses)',
  }),
  url: define({
    each: true,
    apply: (v) => absoluteUrl(requireText(v, "a URL")),
    summary: 'keeps absolute http(s) URLs, adds https:// to a bare host ("acme.com"), drops anything else (e.g. a relative "/img/missing.png")',
  }),
  split: define({
    arg: z.string().min(1, "the separator must not be empty"),
    argOptional: true,
    each: true,
    apply: (v, separator = ",") =>
      typeof v === "string"
        ? v
            .split(separator)
            .map((s) => s.trim())
            .filter((s) => s.length > 0)
        : [v],
    summary: 'text → list, on a separator (default ","); items are trimmed, empty ones dropped',
  }),
  join: define({
    arg: z.string(),
    argOptional: true,
    each: false,
    apply: (v, separator = ", ") => {
      if (!Array.isArray(v)) return v;
      const items = v.filter((x) => !isEmpty(x)).map(String);
      return items.length > 0 ? items.join(separator) : null;
    },
    summary: 'list → text, with a separator (default ", ")',
  }),
  first: define({
    each: false,
    apply: (v) => (Array.isArray(v) ? (v[0] ?? null) : v),
    summary: "the first item of a list (e.g. the headquarters among locations)",
  }),
  rest: define({
    each: false,
    apply: (v) => (Array.isArray(v) ? v.slice(1) : []),
    summary: "all items but the first (e.g. the offices)",
  }),
  lookup: define({
    arg: z.record(z.string(), z.union([z.string(), z.array(z.string()), z.null()])),
    each: true,
    apply: (v, table) => lookup(table ?? {}, v),
    summary: "replaces a value by its entry in a table (exact, then case-insensitive); a value not in the table is dropped; an entry may be a list",
  }),
  default: define({
    arg: JsonValue,
    each: false,
    apply: (v, fallback) => (isEmpty(v) ? (fallback ?? null) : v),
    summary: "a value to use when there is none (null, empty text or empty list)",
  }),
  truncate: define({
    arg: z.number().int().min(2),
    each: true,
    apply: (v, max = 200) => (typeof v === "string" ? truncate(v, max) : v),
    summary: "shortens text to at most N characters, at a word boundary, ending with …",
  }),
} as const;

export type TransformName = keyof typeof TRANSFORMS;
export const TRANSFORM_NAMES = Object.keys(TRANSFORMS) as TransformName[];

export interface Step {
  name: TransformName;
  arg: unknown;
}

/** Applies one step: "each" transforms go item by item and drop the items that become empty. */
export function applyStep(step: Step, value: Value, ctx: TransformContext): Value {
  const def = TRANSFORMS[step.name] as TransformDef<unknown>;
  if (!def.each) return cleanValue(def.apply(value, step.arg, ctx));
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      if (isEmpty(item)) return [];
      const out = cleanValue(def.apply(item, step.arg, ctx));
      return Array.isArray(out) ? out : isEmpty(out) ? [] : [out];
    });
  }
  return isEmpty(value) ? null : cleanValue(def.apply(value, step.arg, ctx));
}

export function transformDef(name: TransformName): TransformDef<unknown> {
  return TRANSFORMS[name] as TransformDef<unknown>;
}

/**
 * The mapping file: which source fields become which organization fields.
 * Validated with zod so a bad mapping fails before any row is read, with
 * messages that name the place in the mapping.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { isTargetKey, isVectorKey, TARGET_KEYS, type TargetKey, VECTOR_KEYS, type VectorKey } from "./targets";
import { type Step, TRANSFORM_NAMES, type TransformName, transformDef } from "./transforms";

export const FORMATS = ["ndjson", "json", "csv"] as const;
export type Format = (typeof FORMATS)[number];

export interface FieldRule<Key extends string = TargetKey> {
  key: Key;
  /** Source field paths (dot paths); empty when the value comes from a `default` step only. */
  from: string[];
  /** Joins the values of several source fields into one text. */
  join: string | null;
  steps: Step[];
  /** "fail": a value that cannot be converted or validated fails the row; "null": the field is left empty, with a warning. */
  onInvalid: "fail" | "null";
}

export interface IdRule {
  /** A numeric id field (with optional steps)... */
  from: string[] | null;
  steps: Step[];
  /** ...or the fields whose values are hashed into a stable id. */
  hash: string[] | null;
}

export interface Mapping {
  format: Format;
  /** JSON only: dot path of the array of records inside the top-level object. */
  records: string | null;
  csv: { delimiter?: string; quote?: string; encoding?: BufferEncoding };
  id: IdRule;
  /** In the order of TARGET_KEYS, so a whole place comes before its parts. */
  fields: FieldRule[];
  /** Vectors computed elsewhere (`profile_vector`, `customer_vector`): read beside the organization, never part of it. */
  vectors: FieldRule<VectorKey>[];
}

/** The vectors a mapping does not give, which the model computes for every row that has their text. */
export const vectorsLeftToModel = (mapping: Mapping): VectorKey[] => VECTOR_KEYS.filter((key) => !mapping.vectors.some((rule) => rule.key === key));

const PARSED = Symbol("orgsim.mapping");
export const isParsedMapping = (value: unknown): value is Mapping =>
  typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[PARSED] === true;

export class MappingError extends Error {
  override readonly name = "MappingError";
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[] = [],
  ) {
    super(message);
  }
}

// ---- schema ----

const sourcePath = z.string({ error: "a source field path must be text" }).trim().min(1, "a source field path must not be empty");

/** One path or a list of them. */
const sourcePaths = z.preprocess(
  (v) => (typeof v === "string" ? [v] : v),
  z.array(sourcePath, { error: "expected a source field path or a list of them" }).min(1, "list at least one source field"),
);

const closest = (word: string, options: readonly string[]) => {
  const distance = (a: string, b: string) => {
    const row = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let previous = row[0] as number;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const current = row[j] as number;
        row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
        previous = current;
      }
    }
    return row[b.length] as number;
  };
  const best = options.map((o) => ({ o, d: distance(word, o) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(2, Math.floor(word.length / 3)) ? ` (did you mean "${best.o}"?)` : "";
};

/** A transform step: "name" or { "name": argument }. */
const step = z.unknown().transform((raw, ctx): Step => {
  let name: string;
  let arg: unknown;
  let hasArg = false;
  if (typeof raw === "string") {
    name = raw;
  } else if (raw && typeof raw === "object" && !Array.isArray(raw) && Object.keys(raw).length === 1) {
    [name, arg] = Object.entries(raw)[0] as [string, unknown];
    hasArg = true;
  } else {
    ctx.addIssue({ code: "custom", message: 'a transform is a name ("int") or an object with one key ({"split": ";"})' });
    return z.NEVER;
  }
  if (!(TRANSFORM_NAMES as string[]).includes(name)) {
    ctx.addIssue({ code: "custom", message: `unknown transform "${name}"${closest(name, TRANSFORM_NAMES)}; known: ${TRANSFORM_NAMES.join(", ")}` });
    return z.NEVER;
  }
  const def = transformDef(name as TransformName);
  if (!def.arg) {
    if (hasArg) ctx.addIssue({ code: "custom", message: `transform "${name}" takes no argument; write "${name}"` });
    return { name: name as TransformName, arg: undefined };
  }
  if (!hasArg) {
    if (!def.argOptional) ctx.addIssue({ code: "custom", message: `transform "${name}" needs an argument: {"${name}": …}` });
    return { name: name as TransformName, arg: undefined };
  }
  const parsed = def.arg.safeParse(arg);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: "custom", message: `argument of "${name}": ${issue.message}`, path: [name, ...issue.path.map(String)] });
    }
    return z.NEVER;
  }
  return { name: name as TransformName, arg: parsed.data };
});

const steps = z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(step));

const fieldSpec = z.preprocess(
  (v) => (typeof v === "string" ? { from: v } : v),
  z
    .strictObject(
      {
        from: sourcePaths.optional(),
        join: z.string({ error: 'join is the separator text, e.g. "\\n\\n"' }).optional(),
        transform: steps,
        on_invalid: z.enum(["fail", "null"]).optional(),
      },
      { error: (issue) => (issue.code === "invalid_type" ? 'a field is a source path ("name") or an object {"from": …, "transform": …}' : undefined) },
    )
    .superRefine((spec, ctx) => {
      if (!spec.from && !spec.transform.some((s) => s.name === "default")) {
        ctx.addIssue({ code: "custom", message: 'needs "from" (a source field) or a {"default": …} transform' });
      }
      if (spec.join !== undefined && !spec.from) ctx.addIssue({ code: "custom", message: '"join" needs "from"', path: ["join"] });
    }),
);

const idSpec = z.preprocess(
  (v) => (typeof v === "string" ? { from: v } : v),
  z
    .strictObject(
      {
        from: sourcePaths.optional(),
        transform: steps,
        hash: sourcePaths.optional(),
      },
      { error: (issue) => (issue.code === "invalid_type" ? 'id is a source path ("source_id") or {"hash": ["field", …]}' : undefined) },
    )
    .superRefine((spec, ctx) => {
      if (!spec.from === !spec.hash)
        ctx.addIssue({ code: "custom", message: 'give either "from" (a numeric id field) or "hash" (key fields to derive a stable id from)' });
      if (spec.hash && spec.transform.length > 0) ctx.addIssue({ code: "custom", message: '"transform" applies to "from" only', path: ["transform"] });
    }),
);

const FIELD_KEYS = [...TARGET_KEYS, ...VECTOR_KEYS];

const fieldsSpec = z.record(z.string(), fieldSpec, { error: "fields is an object: organization field → source" }).superRefine((fields, ctx) => {
  for (const [key, spec] of Object.entries(fields)) {
    if (key === "id") ctx.addIssue({ code: "custom", message: 'the id is set by the top-level "id", not in fields', path: [key] });
    else if (isVectorKey(key) && spec.on_invalid === "null") {
      ctx.addIssue({
        code: "custom",
        message: 'a given vector is not left for the model to fill: on_invalid "null" is not allowed here (a row whose vector cannot be read fails)',
        path: [key, "on_invalid"],
      });
    } else if (!isTargetKey(key) && !isVectorKey(key))
      ctx.addIssue({ code: "custom", message: `unknown organization field${closest(key, FIELD_KEYS)}; known: ${FIELD_KEYS.join(", ")}`, path: [key] });
  }
  if (!fields.name) ctx.addIssue({ code: "custom", message: '"name" must be mapped (every organization has a name)', path: ["name"] });
  else if (fields.name.on_invalid === "null") {
    ctx.addIssue({
      code: "custom",
      message: 'a name cannot be left empty: on_invalid "null" is not allowed here (use "truncate" for long names)',
      path: ["name", "on_invalid"],
    });
  }
});

const mappingSchema = z
  .strictObject({
    $schema: z.string().optional(),
    $comment: z.union([z.string(), z.array(z.string())]).optional(),
    format: z.enum(FORMATS, { error: `format must be one of ${FORMATS.join(", ")}` }),
    records: sourcePath.optional(),
    csv: z
      .strictObject({
        delimiter: z.string().min(1).optional(),
        quote: z.string().length(1).optional(),
        encoding: z.enum(["utf8", "utf-8", "latin1", "utf16le"]).optional(),
      })
      .optional(),
    id: idSpec,
    fields: fieldsSpec,
  })
  .superRefine((m, ctx) => {
    if (m.records !== undefined && m.format !== "json") ctx.addIssue({ code: "custom", message: '"records" applies to format "json" only', path: ["records"] });
    if (m.csv !== undefined && m.format !== "csv") ctx.addIssue({ code: "custom", message: '"csv" options apply to format "csv" only', path: ["csv"] });
  });

export type MappingInput = z.input<typeof mappingSchema>;

const formatPath = (path: readonly PropertyKey[]) =>
  path.reduce<string>((out, key) => (typeof key === "number" ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), "");

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && (issue as { input?: unknown }).input === undefined) return "is required";
  if (issue.code === "unrecognized_keys") {
    const known =
      issue.path.length === 0
        ? "$schema, $comment, format, records, csv, id, fields"
        : issue.path[0] === "id"
          ? "from, transform, hash"
          : issue.path[0] === "csv"
            ? "delimiter, quote, encoding"
            : "from, join, transform, on_invalid";
    return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}; allowed: ${known}`;
  }
  return issue.message;
}

/** Validates a mapping (the parsed JSON of a mapping file); throws MappingError naming every problem. */
export function parseMapping(raw: unknown, source = "mapping"): Mapping {
  if (isParsedMapping(raw)) return raw;
  const parsed = mappingSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: formatPath(issue.path), message: messageOf(issue) }));
    const lines = issues.map((i) => `  - ${i.path || "(top level)"}: ${i.message}`);
    throw new MappingError(`Invalid mapping ${source}:\n${lines.join("\n")}`, issues);
  }
  const m = parsed.data;
  const rulesOf = <Key extends string>(keys: readonly Key[]): FieldRule<Key>[] =>
    keys.flatMap((key) => {
      const spec = m.fields[key];
      if (!spec) return [];
      return [{ key, from: spec.from ?? [], join: spec.join ?? null, steps: spec.transform, onInvalid: spec.on_invalid ?? "fail" }];
    });
  const csv: Mapping["csv"] = {};
  if (m.csv?.delimiter) csv.delimiter = m.csv.delimiter;
  if (m.csv?.quote) csv.quote = m.csv.quote;
  if (m.csv?.encoding) csv.encoding = m.csv.encoding === "utf-8" ? "utf8" : m.csv.encoding;
  const mapping: Mapping = {
    format: m.format,
    records: m.records ?? null,
    csv,
    id: { from: m.id.from ?? null, steps: m.id.transform, hash: m.id.hash ?? null },
    fields: rulesOf(TARGET_KEYS),
    vectors: rulesOf(VECTOR_KEYS),
  };
  Object.defineProperty(mapping, PARSED, { value: true, enumerable: false });
  return mapping;
}

/** Reads and validates a mapping file. */
export async function loadMapping(path: string): Promise<Mapping> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new MappingError(`Cannot read mapping ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new MappingError(`Mapping ${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseMapping(raw, path);
}

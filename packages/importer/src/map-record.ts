/**
 * One source record -> one OrganizationWithId, validated on its own exactly as
 * OrganizationService.upsertMany validates it (OrganizationWithId +
 * normalizeOrganization), with messages that name the field and its source.
 */
import { createHash } from "node:crypto";
import { type GivenVectors, normalizeOrganization, type Organization, OrganizationWithId, OrgsimError, type ValidationIssue } from "@orgsim/core";
import type { FieldRule, Mapping } from "./mapping";
import { ownerOf, TARGETS, type TargetType, VECTOR_TARGETS } from "./targets";
import { applyStep, readPath, show, type Step, TransformError, toInt, type Value } from "./transforms";
import { toVector } from "./vectors";

export type MapResult =
  | {
      ok: true;
      row: OrganizationWithId;
      /** The organization as it will be stored (normalized). */
      organization: Organization;
      /** Fields left empty under on_invalid "null". */
      warnings: string[];
      /** For hashed ids: the key the id was derived from. */
      idKey: string | null;
      /** Vectors the mapping gives (`profile_vector`, `customer_vector`), for upsert's `givenVectors`; null when none. */
      vectors: GivenVectors | null;
    }
  | { ok: false; message: string; id: number | null };

/** Largest derived id: 2^48 − 1, far inside Number.MAX_SAFE_INTEGER and a signed 64-bit integer. */
export const MAX_HASHED_ID = 2 ** 48 - 1;

/** A stable positive integer (1 … 2^48−1) derived from a key with SHA-256. */
export function hashId(key: string): number {
  const id = createHash("sha256").update(key, "utf8").digest().readUIntBE(0, 6);
  return id === 0 ? 1 : id;
}

const KEY_SEPARATOR = "\u001f";

export const sourceLabel = (paths: readonly string[]) => (paths.length === 0 ? "" : ` (from ${paths.map((p) => JSON.stringify(p)).join(" + ")})`);

function runSteps(value: Value, steps: readonly Step[], record: Record<string, unknown>): Value {
  let current = value;
  for (const step of steps) {
    try {
      current = applyStep(step, current, { record });
    } catch (error) {
      if (error instanceof TransformError) throw new TransformError(`${step.name}: ${error.message}`);
      throw error;
    }
  }
  return current;
}

function readSources(rule: { from: string[]; join?: string | null }, record: Record<string, unknown>): Value {
  if (rule.from.length === 0) return null;
  if (rule.from.length === 1 && rule.join == null) return readPath(record, rule.from[0] as string);
  const values = rule.from.flatMap((path) => {
    const v = readPath(record, path);
    return v === null ? [] : Array.isArray(v) ? v : [v];
  });
  if (rule.join == null) return values;
  // joining never repeats a text (e.g. a one-liner that is also the description's first sentence stays once)
  const texts = [...new Set(values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))))];
  return texts.length > 0 ? texts.join(rule.join) : null;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Converts a value to what the target field holds; throws TransformError when that is ambiguous or impossible. */
function coerce(type: TargetType, value: Value): Value {
  if (value === null || value === undefined) return null;
  const single = (v: Value, hint: string): Value => {
    if (!Array.isArray(v)) return v;
    if (v.length === 0) return null;
    if (v.length === 1) return v[0];
    throw new TransformError(`got a list of ${v.length} values; ${hint}`);
  };
  switch (type) {
    case "text": {
      const v = single(value, 'add a "first" or {"join": ", "} transform');
      if (v === null || typeof v === "string") return v;
      if (typeof v === "number" || typeof v === "boolean") return String(v);
      throw new TransformError(`expected text, got ${show(v)}`);
    }
    case "int": {
      const v = single(value, 'add a "first" transform');
      return v === null ? null : toInt(v);
    }
    case "number": {
      const v = single(value, 'add a "first" transform');
      if (v === null || typeof v === "number") return v;
      if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
      throw new TransformError(`${show(v)} is not a number; add the "number" transform for text such as "$12M"`);
    }
    case "texts": {
      const list = Array.isArray(value) ? value : [value];
      return [...new Set(list.map((v) => coerce("text", v)).filter((v) => v !== null))];
    }
    case "place": {
      const v = single(value, 'add a "first" transform');
      if (v === null || isPlainObject(v)) return v;
      throw new TransformError(`expected a place, got ${show(v)}; use the "location_text" transform to read free text`);
    }
    case "places": {
      const list = Array.isArray(value) ? value : [value];
      for (const v of list) {
        if (!isPlainObject(v)) throw new TransformError(`expected places, got ${show(v)}; use the "location_text" transform to read free text`);
      }
      return list.length > 0 ? list : null;
    }
  }
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown) {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (!isPlainObject(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path[path.length - 1] as string;
  // a whole place followed by one of its parts: the part wins, the rest of the place stays
  node[last] = isPlainObject(node[last]) && isPlainObject(value) ? { ...node[last], ...value } : value;
}

function getAt(target: unknown, path: readonly (string | number)[]): unknown {
  let node = target;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

const REMOVED = Symbol("removed");
function removeAt(target: Record<string, unknown>, path: readonly (string | number)[]) {
  const parent = getAt(target, path.slice(0, -1));
  if (parent === null || typeof parent !== "object") return;
  const key = path[path.length - 1] as string | number;
  if (Array.isArray(parent)) parent[key as number] = REMOVED;
  else delete (parent as Record<string, unknown>)[key as string];
}
function compactRemoved(node: unknown): unknown {
  if (Array.isArray(node)) return node.filter((v) => v !== REMOVED).map(compactRemoved);
  if (isPlainObject(node)) return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, compactRemoved(v)]));
  return node;
}

/** Maps and validates one source record. Never throws for bad data. */
export function mapRecord(record: unknown, mapping: Mapping): MapResult {
  if (!isPlainObject(record)) return { ok: false, message: `a record must be an object, got ${show(record)}`, id: null };
  const mappedId = mapId(record, mapping);
  if ("message" in mappedId) return { ok: false, message: mappedId.message, id: null };
  const { id, idKey } = mappedId;
  const { input, errors, warnings } = mapFields(record, mapping, id);
  const given = mapVectors(record, mapping);
  if (errors.length + given.errors.length > 0) return { ok: false, message: [...errors, ...given.errors].join("; "), id };
  const result = validateMapped(input, mapping, warnings, id, idKey);
  return result.ok ? { ...result, vectors: given.vectors } : result;
}

/** The record's id: hashed from its key fields, or read from its id field (a positive safe integer). */
function mapId(record: Record<string, unknown>, mapping: Mapping): { id: number; idKey: string | null } | { message: string } {
  const idRule = mapping.id;
  if (idRule.hash) {
    const parts = idRule.hash.map((path) => readPath(record, path));
    if (parts.every((p) => p === null)) return { message: `id${sourceLabel(idRule.hash)}: the key fields are empty, so no id can be derived` };
    const idKey = parts.map((p) => (p === null ? "" : typeof p === "string" ? p : JSON.stringify(p))).join(KEY_SEPARATOR);
    return { id: hashId(idKey), idKey };
  }
  const from = idRule.from ?? [];
  let id: number;
  try {
    const value = coerce("int", runSteps(readSources({ from }, record), idRule.steps, record));
    if (value === null) return { message: `id${sourceLabel(from)}: is empty` };
    id = value as number;
  } catch (error) {
    if (!(error instanceof TransformError)) throw error;
    return { message: `id${sourceLabel(from)}: ${error.message}` };
  }
  if (id <= 0) return { message: `id${sourceLabel(from)}: ${id} is not a positive integer` };
  if (!Number.isSafeInteger(id)) return { message: `id${sourceLabel(from)}: ${id} is too large for an exact integer id` };
  return { id, idKey: null };
}

/** Every mapped field read, transformed and set on the input; a field that fails its transform is an error, or a warning under on_invalid "null". */
function mapFields(record: Record<string, unknown>, mapping: Mapping, id: number) {
  const input: Record<string, unknown> = { id };
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const rule of mapping.fields) {
    const target = TARGETS[rule.key];
    let value: Value;
    try {
      value = coerce(target.type, runSteps(readSources(rule, record), rule.steps, record));
    } catch (error) {
      if (!(error instanceof TransformError)) throw error;
      const message = `${rule.key}${sourceLabel(rule.from)}: ${error.message}`;
      if (rule.onInvalid === "null") warnings.push(`${message}; left empty`);
      else errors.push(message);
      continue;
    }
    if (value !== null) setPath(input, target.path, value);
  }
  return { input, errors, warnings };
}

/** The vectors the mapping gives, read as lists of numbers (their dimension is the service's check); one that cannot be read is an error. */
function mapVectors(record: Record<string, unknown>, mapping: Mapping): { vectors: GivenVectors | null; errors: string[] } {
  const vectors: GivenVectors = {};
  const errors: string[] = [];
  for (const rule of mapping.vectors) {
    try {
      const vector = toVector(runSteps(readSources(rule, record), rule.steps, record));
      if (vector) vectors[VECTOR_TARGETS[rule.key]] = vector;
    } catch (error) {
      if (!(error instanceof TransformError)) throw error;
      errors.push(`${rule.key}${sourceLabel(rule.from)}: ${error.message}`);
    }
  }
  return { vectors: Object.keys(vectors).length > 0 ? vectors : null, errors };
}

/** An issue said in the mapping's terms: the target field and its source, the message, a hint where one helps. */
function describeIssue(issue: ValidationIssue, current: Record<string, unknown>, rules: Map<string, FieldRule>) {
  const owner = ownerOf(issue.path, new Set(rules.keys()));
  const rule = owner && owner !== "id" ? rules.get(owner) : undefined;
  const rest = owner && owner !== "id" ? issue.path.slice(TARGETS[owner].path.length) : [];
  const label = owner
    ? `${owner}${rest.map((k) => (typeof k === "number" ? `[${k}]` : `.${k}`)).join("")}${rule ? sourceLabel(rule.from) : ""}`
    : issue.path.join(".") || "organization";
  const value = getAt(current, issue.path);
  const message = value === undefined && /expected \w+, received undefined/.test(issue.message) ? "is empty" : issue.message;
  const shown = value === undefined || message === "is empty" || message.includes(show(value)) ? "" : ` (value ${show(value)})`;
  const hint =
    /^unknown country code/.test(message) && rule && !rule.steps.some((s) => s.name === "country" || s.name === "location_text")
      ? '; add the "country" transform to read country names'
      : "";
  return { label, message: `${message}${shown}${hint}`, rule };
}

/** The issues the service's checks find in the input (the schema, then normalization), as plain issues. */
function issuesOf(current: Record<string, unknown>): { row: OrganizationWithId; organization: Organization } | { issues: ValidationIssue[] } {
  const parsed = OrganizationWithId.safeParse(current);
  if (!parsed.success)
    return { issues: parsed.error.issues.map((i) => ({ path: i.path.map((k) => (typeof k === "symbol" ? String(k) : k)), message: i.message })) };
  try {
    return { row: parsed.data, organization: normalizeOrganization(parsed.data) };
  } catch (error) {
    if (!(error instanceof OrgsimError)) throw error;
    return { issues: (error.details.issues as ValidationIssue[] | undefined) ?? [{ path: [], message: error.message }] };
  }
}

/** Validation, as the service does it; values of on_invalid "null" fields that fail are dropped and the rest checked again. */
function validateMapped(
  input: Record<string, unknown>,
  mapping: Mapping,
  warnings: string[],
  id: number,
  idKey: string | null,
): Exclude<MapResult, { ok: true }> | Omit<Extract<MapResult, { ok: true }>, "vectors"> {
  const rules = new Map<string, FieldRule>(mapping.fields.map((f) => [f.key, f]));
  let current: Record<string, unknown> = input;
  for (let attempt = 0; attempt < 4; attempt++) {
    const checked = issuesOf(current);
    if ("row" in checked) return { ok: true, row: checked.row, organization: checked.organization, warnings, idKey };
    const { issues } = checked;
    // fields marked on_invalid "null" lose the offending value; any other issue fails the row
    // (a missing required value cannot be left empty: it is fatal whatever on_invalid says)
    const fatal = issues.filter((issue) => describeIssue(issue, current, rules).rule?.onInvalid !== "null" || getAt(current, issue.path) === undefined);
    if (fatal.length > 0) {
      const messages = [
        ...new Set(
          fatal.map((issue) => {
            const d = describeIssue(issue, current, rules);
            return `${d.label}: ${d.message}`;
          }),
        ),
      ];
      return { ok: false, message: messages.join("; "), id };
    }
    for (const issue of issues) {
      const d = describeIssue(issue, current, rules);
      warnings.push(`${d.label}: ${d.message}; left empty`);
      removeAt(current, issue.path);
    }
    current = compactRemoved(current) as Record<string, unknown>;
  }
  return { ok: false, message: "could not be made valid", id };
}

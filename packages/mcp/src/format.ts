/**
 * Agent-sized records and their text rendering. The compact shapes are picked
 * from the core schemas' fields (never restated), so their types follow the core.
 */
import {
  type Category,
  type CollectionItem as CollectionItemType,
  CollectionItem,
  type Collection as CollectionType,
  FundingRoundSummary,
  Metrics,
  Organization,
  type OrganizationResult,
  Place,
  Similarity,
  type Organization as OrganizationType,
} from "@orgsim/core";
import { z } from "zod";

/** Compact descriptions and notes are cut to this many characters. */
export const ONE_LINE_MAX = 200;

const O = Organization.shape;
const M = Metrics.shape;
const P = Place.shape;
const R = FundingRoundSummary.shape;
const S = Similarity.shape;

export const CompactOrganization = z
  .object({
    id: O.id,
    name: O.name,
    domain: O.domain,
    description: O.description.meta({ description: `The description's first ~${ONE_LINE_MAX} characters, on one line` }),
    categories: O.categories,
    hq_city: P.city,
    hq_country_code: P.country_code,
    employee_range: M.employee_range,
    founded_year: M.founded_year,
    last_round_stage: R.stage,
    last_round_on: R.announced_on,
  })
  .meta({ description: "An organization in brief; detail=full (or get_organization) gives the whole record" });
export type CompactOrganization = z.infer<typeof CompactOrganization>;

export const CompactOrganizationResult = CompactOrganization.extend({
  score: S.score,
  cosine_similarity: S.cosine_similarity,
  rank: S.rank,
  why: z.string().optional().meta({ description: 'With explain=true: the short reason, e.g. "shares: Fintech, DE, 11-50; words: payroll, invoices"' }),
});
export type CompactOrganizationResult = z.infer<typeof CompactOrganizationResult>;

/**
 * A complete organization in the output schema of a tool other than get_organization: id and name
 * typed, the other fields left to get_organization's output schema, which describes the record once.
 * Repeating the whole record in every tool made tools/list ~125 kB, a cost an agent pays on every session.
 */
export const FullOrganization = z
  .looseObject({ id: O.id, name: O.name })
  .meta({ description: "The complete organization record, every field as get_organization's output schema describes it" });

export const FullOrganizationResult = FullOrganization.extend({
  similarity: z.looseObject({ score: S.score, cosine_similarity: S.cosine_similarity, rank: S.rank }).meta({
    description: "score, cosine_similarity, cosine_distance, rank; with explain=true also explanation (vector, words, matched_words, shared, summary)",
  }),
});

const I = CollectionItem.shape;
export const CompactItem = z
  .object({
    id: I.id,
    entity_type: I.entity_type,
    entity_id: I.entity_id,
    label: z.string().nullable().meta({ description: "A name for the entity taken from its snapshot (name, full_name, address, round), if any" }),
    tags: I.tags,
    notes: I.notes.meta({ description: `The notes' first ~${ONE_LINE_MAX} characters` }),
  })
  .meta({ description: "A collection item in brief; detail=full gives created_at, updated_at, the entity snapshot and whole notes" });
export type CompactItem = z.infer<typeof CompactItem>;

/** Collapses whitespace and cuts at a word boundary, marking the cut with "…". */
export function oneLine(text: string | null, max = ONE_LINE_MAX): string | null {
  if (text === null) return null;
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const atWord = cut.lastIndexOf(" ");
  return `${(atWord > max * 0.6 ? cut.slice(0, atWord) : cut).trimEnd()}…`;
}

export function compactOrganization(organization: OrganizationType): CompactOrganization {
  const headquarters = organization.location.headquarters;
  const lastRound = organization.metrics.funding?.last_round ?? null;
  return {
    id: organization.id,
    name: organization.name,
    domain: organization.domain,
    description: oneLine(organization.description),
    categories: organization.categories,
    hq_city: headquarters?.city ?? null,
    hq_country_code: headquarters?.country_code ?? null,
    employee_range: organization.metrics.employee_range,
    founded_year: organization.metrics.founded_year,
    last_round_stage: lastRound?.stage ?? null,
    last_round_on: lastRound?.announced_on ?? null,
  };
}

export function compactResult(result: OrganizationResult): CompactOrganizationResult {
  return {
    ...compactOrganization(result),
    score: result.similarity.score,
    cosine_similarity: result.similarity.cosine_similarity,
    rank: result.similarity.rank,
    ...(result.similarity.explanation ? { why: result.similarity.explanation.summary } : {}),
  };
}

function itemLabel(item: CollectionItemType): string | null {
  const e = item.entity;
  if (!e) return null;
  const text = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : null);
  switch (item.entity_type) {
    case "organization":
    case "product":
      return text(e.name);
    case "person":
      return text(e.full_name);
    case "address":
      return [e.address_line, e.city, e.country_code].map(text).filter(Boolean).join(", ") || null;
    case "funding_round":
      return [e.stage, e.announced_on].map(text).filter(Boolean).join(" ") || null;
  }
}

export function compactItem(item: CollectionItemType): CompactItem {
  return { id: item.id, entity_type: item.entity_type, entity_id: item.entity_id, label: itemLabel(item), tags: item.tags, notes: oneLine(item.notes) };
}

// ---- text: what an agent reads when its client shows only `content` ----

/** One line of the fields an agent decides on, then the description on the next. */
export function organizationLines(organization: OrganizationType, similarity?: { score: number; rank: number; explanation?: { summary: string } }): string {
  const c = compactOrganization(organization);
  const where = [c.hq_city, c.hq_country_code].filter(Boolean).join(", ");
  const facts = [
    where || null,
    c.employee_range ? `${c.employee_range} employees` : null,
    c.founded_year ? `founded ${c.founded_year}` : null,
    c.last_round_stage ? `last round ${c.last_round_stage}${c.last_round_on ? ` ${c.last_round_on}` : ""}` : null,
    c.categories.length ? c.categories.join(", ") : null,
  ].filter(Boolean);
  const head = similarity ? `${similarity.rank}. [score ${similarity.score.toFixed(3)}] ` : "- ";
  const lines = [`${head}${c.name} (id ${c.id}${c.domain ? `, ${c.domain}` : ""})${facts.length ? ` — ${facts.join(" · ")}` : ""}`];
  if (c.description) lines.push(`   ${c.description}`);
  if (similarity?.explanation) lines.push(`   why: ${similarity.explanation.summary}`);
  return lines.join("\n");
}

export function collectionLine(collection: CollectionType): string {
  const type = collection.entity_type ?? "no type yet (the first item fixes it)";
  return `- ${collection.id} "${collection.name}": ${type}, ${collection.item_count} item${collection.item_count === 1 ? "" : "s"}${
    collection.description ? ` — ${oneLine(collection.description, 120)}` : ""
  }`;
}

export function itemLine(item: CollectionItemType): string {
  const c = compactItem(item);
  const parts = [`- ${c.id}: ${c.entity_type} ${c.entity_id}${c.label ? ` "${c.label}"` : ""}`];
  if (c.tags.length) parts.push(`tags: ${c.tags.join(", ")}`);
  if (c.notes) parts.push(`notes: ${oneLine(c.notes, 120)}`);
  return parts.join(" · ");
}

export function categoryLine(category: Category): string {
  return `- ${category.slug}: ${category.name} (${category.sector})`;
}

export const moreLine = (nextCursor: string | null, what: string) =>
  nextCursor ? `More ${what}: call again with the same arguments and cursor "${nextCursor}".` : `No more ${what}.`;

/** Full records travel in structuredContent; this copy is for clients that only pass `content` to the model. */
export const jsonBlock = (label: string, value: unknown) => `${label}:\n${JSON.stringify(value)}`;

/**
 * The fields a mapping can fill: each key of a mapping's `fields`, the place it
 * takes in an OrganizationWithId and the type its value must end up as; and the
 * two keys that carry vectors instead (VECTOR_TARGETS, at the end).
 */
import type { GivenVectors } from "@orgsim/core";

export type TargetType = "text" | "int" | "number" | "texts" | "place" | "places";

export interface Target {
  /** Where the value goes in an OrganizationWithId. */
  path: readonly string[];
  type: TargetType;
}

export const TARGETS = {
  name: { path: ["name"], type: "text" },
  description: { path: ["description"], type: "text" },
  domain: { path: ["domain"], type: "text" },
  logo_url: { path: ["logo_url"], type: "text" },
  customer_description: { path: ["customer_description"], type: "text" },
  categories: { path: ["categories"], type: "texts" },

  employee_count: { path: ["metrics", "employee_count"], type: "int" },
  employee_range: { path: ["metrics", "employee_range"], type: "text" },
  founded_on: { path: ["metrics", "founded_on"], type: "text" },
  founded_year: { path: ["metrics", "founded_year"], type: "int" },

  "funding.total_raised_usd": { path: ["metrics", "funding", "total_raised_usd"], type: "number" },
  "funding.rounds_count": { path: ["metrics", "funding", "rounds_count"], type: "int" },
  "funding.last_round.stage": { path: ["metrics", "funding", "last_round", "stage"], type: "text" },
  "funding.last_round.announced_on": { path: ["metrics", "funding", "last_round", "announced_on"], type: "text" },
  "funding.last_round.amount_usd": { path: ["metrics", "funding", "last_round", "amount_usd"], type: "number" },

  headquarters: { path: ["location", "headquarters"], type: "place" },
  "headquarters.address_line": { path: ["location", "headquarters", "address_line"], type: "text" },
  "headquarters.city": { path: ["location", "headquarters", "city"], type: "text" },
  "headquarters.subdivision_code": { path: ["location", "headquarters", "subdivision_code"], type: "text" },
  "headquarters.postal_code": { path: ["location", "headquarters", "postal_code"], type: "text" },
  "headquarters.country_code": { path: ["location", "headquarters", "country_code"], type: "text" },
  offices: { path: ["location", "offices"], type: "places" },

  website: { path: ["contact", "website"], type: "text" },
  email: { path: ["contact", "email"], type: "text" },
  phone: { path: ["contact", "phone"], type: "text" },
  linkedin: { path: ["contact", "social", "linkedin"], type: "text" },
  twitter: { path: ["contact", "social", "twitter"], type: "text" },
  github: { path: ["contact", "social", "github"], type: "text" },
} as const satisfies Record<string, Target>;

export type TargetKey = keyof typeof TARGETS;
export const TARGET_KEYS = Object.keys(TARGETS) as TargetKey[];
export const isTargetKey = (key: string): key is TargetKey => Object.hasOwn(TARGETS, key);

/**
 * The mapping field that owns a path of an OrganizationWithId (the longest
 * target path that is a prefix of it), e.g. location.headquarters.city ->
 * "headquarters.city" when that is mapped, else "headquarters".
 */
export function ownerOf(path: readonly (string | number)[], mapped: ReadonlySet<string>): TargetKey | "id" | null {
  if (path[0] === "id") return "id";
  let best: TargetKey | null = null;
  let bestLength = -1;
  for (const key of TARGET_KEYS) {
    if (!mapped.has(key)) continue;
    const target = TARGETS[key].path;
    if (target.length > path.length || target.length <= bestLength) continue;
    if (target.every((segment, i) => path[i] === segment)) {
      best = key;
      bestLength = target.length;
    }
  }
  return best;
}

/**
 * Mapping keys for vectors computed elsewhere (bring your own embeddings), and the vector each gives.
 * They are not organization fields: their values travel beside the row to `upsert` (as
 * OrganizationService.upsertMany's `givenVectors`), which stores them instead of embedding.
 */
export const VECTOR_TARGETS = { profile_vector: "profile", customer_vector: "customer" } as const satisfies Record<string, keyof GivenVectors>;

export type VectorKey = keyof typeof VECTOR_TARGETS;
export const VECTOR_KEYS = Object.keys(VECTOR_TARGETS) as VectorKey[];
export const isVectorKey = (key: string): key is VectorKey => Object.hasOwn(VECTOR_TARGETS, key);

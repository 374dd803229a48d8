/** Finding organizations by name (type-ahead) and domain: the store's tiers merged best first, paged by a signed cursor. */
import { domainKey, nameWords } from "../domain/lookup-keys";
import type { LookupTiers, OrganizationStore } from "../ports/organization-store";
import { type FindOrganizationsInput, MAX_LOOKUP_DEPTH, type OrganizationPage } from "../schemas/lookup";
import type { Organization } from "../schemas/organization";
import { decodeCursor, encodeCursor, fingerprint } from "./cursor";

const isOffset = (p: unknown): p is number => Number.isInteger(p) && (p as number) > 0 && (p as number) < MAX_LOOKUP_DEPTH;

export async function findOrganizations(store: OrganizationStore, input: FindOrganizationsInput): Promise<OrganizationPage> {
  const words = input.name === undefined ? [] : nameWords(input.name);
  // The schema refused a domain that names no host.
  const domain = input.domain === undefined ? undefined : (domainKey(input.domain) as string);
  const queryFingerprint = fingerprint(["lookup", words, domain ?? null]);
  const offset = input.cursor ? decodeCursor(input.cursor, queryFingerprint, isOffset) : 0;
  const end = Math.min(offset + input.limit, MAX_LOOKUP_DEPTH);
  // One more than the page tells whether another follows.
  const ranked = bestFirst(await store.lookUp({ words, size: end + 1, ...(domain ? { domain } : {}) }));
  const data = inOrder(ranked.slice(offset, end), await store.getMany(ranked.slice(offset, end)));
  const more = ranked.length > end && end < MAX_LOOKUP_DEPTH;
  return { data, meta: { limit: input.limit, next_cursor: more ? encodeCursor(end, queryFingerprint) : null } };
}

/**
 * The tiers as one list, each organization at its best place. Each tier holds at least `size` ids
 * when it has them, so the first `size` of the merge are exact: the ones a tier repeats from an
 * earlier tier can be at most as many as that earlier tier gave.
 */
export function bestFirst(tiers: LookupTiers): number[] {
  return [...new Set([...tiers.namePrefix, ...tiers.allWords, ...tiers.wordPrefixes])];
}

function inOrder(ids: number[], organizations: Organization[]): Organization[] {
  const byId = new Map(organizations.map((o) => [o.id, o]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

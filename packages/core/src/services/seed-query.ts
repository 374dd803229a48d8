/**
 * Several seeds (POST /search/organizations/similar) as one query: each seed resolved to a vector
 * and a text (a stored organization by id or domain, or an embedded description), then the
 * vectors combined (domain/seed-vector.ts) and the texts of the `like` seeds taken for words.
 * A seed that names no stored organization is reported, not fatal, unless no `like` seed is left.
 */
import { lexicalTextsOf } from "../domain/lexical";
import { domainKey } from "../domain/lookup-keys";
import { seedVector } from "../domain/seed-vector";
import { OrgsimError } from "../errors";
import type { OrganizationStore } from "../ports/organization-store";
import type { Organization } from "../schemas/organization";
import type { MissingSeed, Seed } from "../schemas/search";

/** A seed made usable: its vector, its words, and the organization it names (none for a description). */
interface ResolvedSeed {
  vector: Float32Array;
  text: string;
  organization: Organization | null;
}

export interface SeedQuery {
  vector: Float32Array;
  /** The words of the `like` seeds, each seed's text on its own line. */
  likeText: string;
  /** The organizations the `like` seeds name (explain's shared facets). */
  likeOrganizations: Organization[];
  /** Every organization a seed names: never among the results. */
  seedIds: number[];
  missing: MissingSeed[];
  /** The vector is one stored organization's own: a single `like` seed names it, and no `unlike` seed is left (VectorQuery.storedVector). */
  storedVector: boolean;
}

type List = "like" | "unlike";

export async function seedQuery(
  store: OrganizationStore,
  embedQueries: (texts: string[]) => Promise<Float32Array[]>,
  like: readonly Seed[],
  unlike: readonly Seed[],
): Promise<SeedQuery> {
  const descriptions = [...like, ...unlike].flatMap((seed) => ("description" in seed ? [seed.description] : []));
  const embedded = new Map(descriptions.length ? (await embedQueries(descriptions)).map((v, i) => [descriptions[i] as string, v]) : []);
  const missing: MissingSeed[] = [];
  const resolveAll = async (list: List, seeds: readonly Seed[]) => {
    const resolved = await Promise.all(seeds.map((seed) => resolve(store, embedded, seed)));
    return resolved.flatMap((r, index) => {
      if (typeof r !== "string") return [r];
      missing.push({ list, index, seed: seeds[index] as Seed, reason: r });
      return [];
    });
  };
  const [liked, unliked] = [await resolveAll("like", like), await resolveAll("unlike", unlike)];
  if (liked.length === 0) {
    throw new OrgsimError("NOT_FOUND", "None of the like seeds names a stored organization", { missing_seeds: missing });
  }
  return {
    vector: seedVector(
      liked.map((s) => s.vector),
      unliked.map((s) => s.vector),
    ),
    likeText: liked.map((s) => s.text).join("\n"),
    likeOrganizations: liked.flatMap((s) => (s.organization ? [s.organization] : [])),
    seedIds: [...new Set([...liked, ...unliked].flatMap((s) => (s.organization ? [s.organization.id] : [])))],
    missing,
    storedVector: liked.length === 1 && liked[0]?.organization !== null && unliked.length === 0,
  };
}

/** The seed made usable, or why it cannot be. */
async function resolve(store: OrganizationStore, embedded: Map<string, Float32Array>, seed: Seed): Promise<ResolvedSeed | string> {
  if ("description" in seed) return { vector: embedded.get(seed.description) as Float32Array, text: seed.description, organization: null };
  let id: number;
  if ("domain" in seed) {
    // The schema refused a domain that names no host. Several organizations at one domain: the first by id.
    const [first] = (await store.lookUp({ words: [], domain: domainKey(seed.domain) as string, size: 1 })).wordPrefixes;
    if (first === undefined) return `no stored organization has the domain ${domainKey(seed.domain)}`;
    id = first;
  } else id = seed.organization_id;
  const [organization, vector] = await Promise.all([store.get(id), store.getVector(id, "profile")]);
  if (!organization || !vector) return `no stored organization has the id ${id}`;
  return { vector, text: lexicalTextsOf(organization).profile ?? organization.name, organization };
}

/**
 * Searches of the organizations index. Vector searches are one top-level `knn` with every filter
 * inside `knn.filter` (filtered before ranking), scored with the float vectors' cosines (quantized
 * indexes re-score with them) that Elasticsearch computes, so no vector is read back; word
 * searches are a BM25 `match` under the same filter. Each call maps its errors (`guarded`).
 */
import type { Client, estypes } from "@elastic/elasticsearch";
import {
  assertQueryDimension,
  lexicalTerms,
  type Organization,
  OrgsimError,
  type ScoredId,
  type ScoredOrganization,
  type TextQuery,
  type VectorKind,
  type VectorQuery,
} from "@orgsim/core";
import { type IndexName, isQuantized, oversampleOf, type ResolvedConfig, type VectorIndexType } from "./config";
import { guarded } from "./errors";
import { ID_ONLY, idOfHit } from "./id-hits";
import { exclusionClauses, filterQuery, type OrganizationDocument, sharedFilterQuery, TEXT_FIELD, VECTOR_FIELD } from "./organization-document";
import type { OrganizationIndex } from "./organization-index";
import { MAX_CANDIDATES, pagePlan, type SearchPlan, widerPlan } from "./search-plan";
import { cosine, squaredNorm } from "./vector-math";

type KnnHit = estypes.SearchHit<Pick<OrganizationDocument, "doc" | "profile_vector" | "customer_vector">>;
type ScoredHit = { organization: Pick<Organization, "id">; score: number };

export class OrganizationSearch {
  /** The shards of each concrete index, as its searches report them. */
  private readonly shards = new Map<string, number>();

  constructor(
    private readonly client: Client,
    private readonly config: ResolvedConfig,
    private readonly name: IndexName,
    private readonly index: OrganizationIndex,
  ) {}

  async search(query: VectorQuery): Promise<ScoredOrganization[]> {
    return this.knn(query, true);
  }

  async rank(query: VectorQuery): Promise<ScoredId[]> {
    return (await this.knn(query, false)).map(({ organization, score }) => ({ id: organization.id, score }));
  }

  async searchText(query: TextQuery): Promise<number[]> {
    // Each distinct term once: a match query would count a repeated term again, the BM25 of the core does not.
    const terms = [...new Set(lexicalTerms(query.text))];
    if (query.size <= 0 || terms.length === 0) return [];
    if (query.size > MAX_CANDIDATES) throw new OrgsimError("VALIDATION_FAILED", `Elasticsearch ranks at most ${MAX_CANDIDATES} hits; asked for ${query.size}`);
    return guarded(this.config.url, async () => {
      const info = await this.index.cached();
      if (!info) return [];
      await this.index.upgradeSchema(info);
      const response = await this.client.search({
        index: this.name.alias,
        // BM25 of the whole index, as the core defines it: each shard alone would score with its own
        // term and length statistics. One shard holds them all, and the extra round still costs.
        search_type: this.shardsOf(info.index) > 1 ? "dfs_query_then_fetch" : "query_then_fetch",
        ...wordSearchBody(query, terms),
      });
      this.shards.set(info.index, response._shards.total);
      return response.hits.hits.map(idOfHit);
    });
  }

  /**
   * The cosines of `ids` with `vector`: Elasticsearch's own float32 cosines from a kNN search
   * restricted to those ids (exact over so few), so no float vector crosses the wire; from the
   * vectors in `_source` only where Elasticsearch's scores are quantized (see floatScores). Where
   * they are not, rank()'s scores are these same cosines: the `ranked` ones are taken as they are.
   */
  async similarities(vector: Float32Array, kind: VectorKind, ids: number[], ranked?: ReadonlyMap<number, number>): Promise<Map<number, number>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const field = VECTOR_FIELD[kind];
    return guarded(this.config.url, async () => {
      const info = await this.index.cached();
      if (!info) return new Map();
      assertQueryDimension(vector.length, info.dimension);
      if (!this.floatScores(info.type)) return this.similaritiesFromSource(vector, field, unique);
      const known = new Map<number, number>();
      for (const id of unique) {
        const score = ranked?.get(id);
        if (score !== undefined) known.set(id, score);
      }
      const unknown = unique.filter((id) => !known.has(id));
      if (unknown.length === 0) return known;
      const response = await this.client.search({
        index: this.name.alias,
        ...knnOfIds(vector, field, unknown, info.type, oversampleOf(this.config, info.type, kind)),
      });
      for (const hit of response.hits.hits) known.set(idOfHit(hit), cosineOfScore(hit._score));
      return known;
    });
  }

  private async similaritiesFromSource(vector: Float32Array, field: string, ids: number[]): Promise<Map<number, number>> {
    const response = await this.client.mget<Partial<OrganizationDocument>>({ index: this.name.alias, ids: ids.map(String), _source_includes: [field] });
    const q = Float64Array.from(vector);
    const qNorm = squaredNorm(q);
    const out = new Map<number, number>();
    for (const d of response.docs) {
      const v = "found" in d && d.found ? d._source?.[field as keyof OrganizationDocument] : undefined;
      if (Array.isArray(v)) out.set(Number(d._id), cosine(q, qNorm, v as number[]));
    }
    return out;
  }

  /** The shards of `index`: several until a search says otherwise. */
  private shardsOf(index: string): number {
    return this.shards.get(index) ?? 2;
  }

  /**
   * Whether Elasticsearch's scores are the float vectors' cosines (float32, within 1e-6 of the exact
   * figure: measured 3.3e-7 at most on 100k): so for float indexes and quantized ones re-scored with
   * the float vectors; not for quantized ones without re-scoring (oversample 0).
   */
  private floatScores(type: VectorIndexType): boolean {
    // Whether it re-scores at all does not depend on the kind.
    return hasFloatScores(type, oversampleOf(this.config, type, "profile"));
  }

  /**
   * The kNN ranking, with the organizations and exact scores; or only ids with Elasticsearch's own
   * float32 scores (no `_source`: parsing it is most of a big ranking's cost).
   */
  private async knn(query: VectorQuery, withDocuments: true): Promise<ScoredOrganization[]>;
  private async knn(query: VectorQuery, withDocuments: false): Promise<ScoredHit[]>;
  private async knn(query: VectorQuery, withDocuments: boolean): Promise<ScoredHit[]> {
    const k = query.offset + query.size;
    if (k <= 0 || query.size <= 0) return [];
    if (k > MAX_CANDIDATES) throw new OrgsimError("VALIDATION_FAILED", `Elasticsearch ranks at most ${MAX_CANDIDATES} hits; asked for ${k}`);
    return guarded(this.config.url, async () => {
      const info = await this.index.cached();
      if (!info) return [];
      assertQueryDimension(query.vector.length, info.dimension);
      const { hits, plan } = await this.knnHits(query, info.type, withDocuments);
      const minScore = query.minScore ?? Number.NEGATIVE_INFINITY;
      const scored = !withDocuments
        ? clusterScores(hits, minScore)
        : this.floatScores(info.type)
          ? documentScores(hits, minScore)
          : exactScores(hits, query, minScore);
      return scored.slice(query.offset - plan.from, k - plan.from);
    });
  }

  /** The hits around the page; a tie on the page's last score that runs to the end of the k hits kept is followed further. */
  private async knnHits(query: VectorQuery, type: VectorIndexType, withDocuments: boolean): Promise<{ hits: KnnHit[]; plan: SearchPlan }> {
    const k = query.offset + query.size;
    let plan = pagePlan(this.config, query, type);
    for (;;) {
      const hits = await this.knnRequest(query, plan, withDocuments && { vectors: !this.floatScores(type) });
      // The tie may hide lower ids past k: keep more.
      const lastOfPage = hits[k - 1 - plan.from];
      const lastKept = hits[plan.k - 1 - plan.from];
      if (!(plan.k < MAX_CANDIDATES && lastOfPage && lastKept && lastKept._score === lastOfPage._score)) return { hits, plan };
      plan = widerPlan(this.config, query, type, plan);
    }
  }

  /** `documents`: the hits' organizations, with their float vectors when the scores must be computed here. */
  private async knnRequest(query: VectorQuery, plan: SearchPlan, documents: false | { vectors: boolean }): Promise<KnnHit[]> {
    const response = await this.client.search<KnnHit["_source"] & object>({ index: this.name.alias, ...knnSearchBody(query, plan, documents) });
    return response.hits.hits;
  }
}

/** The body of a ranking's kNN search for `plan` (search-plan.ts); `documents` as in knnRequest. */
export function knnSearchBody(query: VectorQuery, plan: SearchPlan, documents: false | { vectors: boolean }) {
  const field = VECTOR_FIELD[query.kind];
  return {
    knn: {
      field,
      query_vector: Array.from(query.vector),
      k: plan.k,
      num_candidates: plan.numCandidates,
      filter: filterQuery(query.filter, query.kind),
      ...(plan.similarity !== null ? { similarity: plan.similarity } : {}),
      ...(plan.oversample !== null ? { rescore_vector: { oversample: plan.oversample } } : {}),
    },
    // Equal scores by id ascending, within the k hits kept.
    sort: [{ _score: { order: "desc" } }, { id: { order: "asc" } }],
    from: plan.from,
    size: plan.size,
    // Without documents, ids only (id-hits.ts). A vector in _source costs more than the search
    // (measured at 100k: +5 ms p50 for 20 hits).
    ...(documents ? { _source: { includes: documents.vectors ? ["doc", field] : ["doc"] } } : ID_ONLY),
    track_total_hits: false,
  } satisfies estypes.SearchRequest;
}

/**
 * The body of a word search (BM25 of `terms`, each once) under the query's filter. The excluded ids
 * stay out of the filter clause, which is then the same for every search with that filter (see
 * sharedFilterQuery).
 */
export function wordSearchBody(query: TextQuery, terms: string[]) {
  return {
    query: {
      bool: {
        must: [{ match: { [TEXT_FIELD[query.kind]]: { query: terms.join(" ") } } }],
        filter: [sharedFilterQuery(query.filter, query.kind)],
        must_not: exclusionClauses(query.filter),
      },
    },
    sort: [{ _score: { order: "desc" } }, { id: { order: "asc" } }],
    size: query.size,
    ...ID_ONLY,
    track_total_hits: false,
  } satisfies estypes.SearchRequest;
}

/** Whether Elasticsearch's scores are the float vectors' cosines (OrganizationSearch.floatScores). */
export const hasFloatScores = (type: VectorIndexType, oversample: number) => !isQuantized(type) || oversample > 0;

/**
 * A kNN search body restricted to `ids` (unique): every one of them that has a `field` vector is a
 * hit, scored with Elasticsearch's float32 cosine (exact over so few; quantized indexes re-score).
 */
export function knnOfIds(vector: Float32Array, field: string, ids: number[], type: VectorIndexType, oversample: number) {
  return {
    knn: {
      field,
      query_vector: Array.from(vector),
      k: ids.length,
      num_candidates: ids.length,
      filter: { ids: { values: ids.map(String) } },
      ...(isQuantized(type) ? { rescore_vector: { oversample } } : {}),
    },
    size: ids.length,
    ...ID_ONLY,
    track_total_hits: false,
  } satisfies estypes.SearchRequest;
}

/** Elasticsearch's own cosine (float32): a kNN `_score` is (1 + cosine) / 2. */
export const cosineOfScore = (score: number | null | undefined) => 2 * (score ?? 0) - 1;

/** Elasticsearch's own cosines (re-scored with the float vectors when quantized), in its order: score desc, id asc. */
function clusterScores(hits: KnnHit[], minScore: number): ScoredHit[] {
  return hits.map((hit) => ({ organization: { id: idOfHit(hit) }, score: cosineOfScore(hit._score) })).filter((h) => h.score >= minScore);
}

/** The hits' organizations with Elasticsearch's own cosines (see floatScores). */
function documentScores(hits: KnnHit[], minScore: number): ScoredOrganization[] {
  return hits.flatMap((hit) => {
    const score = cosineOfScore(hit._score);
    return hit._source?.doc && score >= minScore ? [{ organization: hit._source.doc, score }] : [];
  });
}

/** Exact float64 scores from the float32 vectors, in score desc, id asc order. */
function exactScores(hits: KnnHit[], query: VectorQuery, minScore: number): ScoredOrganization[] {
  const field = VECTOR_FIELD[query.kind];
  const q = Float64Array.from(query.vector);
  const qNorm = squaredNorm(q);
  const scored = hits.flatMap((hit) => {
    const source = hit._source;
    const v = source?.[field];
    if (!source || !v) return [];
    const score = cosine(q, qNorm, v);
    return score >= minScore ? [{ organization: source.doc, score }] : [];
  });
  scored.sort((a, b) => b.score - a.score || a.organization.id - b.organization.id);
  return scored;
}

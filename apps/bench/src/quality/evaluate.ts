/**
 * The three judged tasks, run through the product, and the per-query numbers they produce. A
 * "method" is one way of ranking: the product's vector ranking on a backend with a model, its
 * word ranking alone (BM25), or its default hybrid ranking (their reciprocal rank fusion).
 */
import {
  type Embedder,
  type EmbeddingPurpose,
  FUSION_DEPTH,
  fusedRelevance,
  type OrganizationStore,
  type Ranking,
  type SearchService,
  SimilarCustomersInput,
  SimilarToDescriptionInput,
  SimilarToOrganizationInput,
} from "@orgsim/core";
import type { LabelledRow } from "./datasets";
import { K, precisionAtK, reciprocalRank, recallAtK } from "./metrics";

/** The judged tasks; `seeds-<label>` is the several-seeds task on that label (seeds.ts). */
export type TaskId = "similar" | "known-item" | "customer" | `seeds-${string}`;

/** The product's limit on query texts. */
export const MAX_QUERY_CHARS = 2000;

export interface Query {
  /** Position in the task's query list. */
  index: number;
  /** The organization the query comes from (the known item, or the one whose label is matched). */
  orgId: number;
  text: string;
}

export interface Task {
  id: "similar" | "known-item" | "customer";
  queries: Query[];
  /** Metric names, in report order: p10_<label> for label tasks, mrr10 and recall10 for known-item search. */
  metrics: string[];
  /** Queries whose text was cut to MAX_QUERY_CHARS. */
  truncated: number;
}

/** A text cut to the product's limit at a word boundary. */
export function fitQuery(text: string): { text: string; truncated: boolean } {
  const t = text.trim();
  if (t.length <= MAX_QUERY_CHARS) return { text: t, truncated: false };
  const cut = t.slice(0, MAX_QUERY_CHARS);
  const space = cut.lastIndexOf(" ");
  return { text: space > MAX_QUERY_CHARS * 0.8 ? cut.slice(0, space) : cut, truncated: true };
}

/** Per-query values of one metric for one method; NaN where the query was not run (samples) or the metric does not apply. */
export type Values = Float64Array;

/** Scores one ranking (top ids, best first) of query q on every metric of the task. */
export function judge(task: Task, q: Query, ranking: readonly number[], rows: Map<number, LabelledRow>, labels: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  if (task.id === "known-item") {
    out.set("mrr10", reciprocalRank(ranking, q.orgId));
    out.set("recall10", recallAtK(ranking, q.orgId));
    return out;
  }
  const own = rows.get(q.orgId)!;
  for (const label of labels) {
    const value = own.labels[label];
    if (value == null) continue;
    out.set(
      `p10_${label}`,
      precisionAtK(ranking, (id) => rows.get(id)?.labels[label] === value),
    );
  }
  return out;
}

/** The ranking the product returns for a query of a task (ids, best first). */
export async function productRanking(search: SearchService, task: Task["id"], q: Query, limit: number, ranking: Ranking): Promise<number[]> {
  let response: Awaited<ReturnType<SearchService["similarToOrganization"]>>;
  if (task === "similar") {
    response = await search.similarToOrganization(SimilarToOrganizationInput.parse({ organization_id: q.orgId, limit, ranking }));
  } else if (task === "known-item") {
    response = await search.similarToDescription(SimilarToDescriptionInput.parse({ description: q.text, limit, ranking }));
  } else {
    // The organization's own customer text finds others with that customer base; it is not one of its own results.
    response = await search.similarCustomers(SimilarCustomersInput.parse({ organization_customer: q.text, exclude_ids: [q.orgId], limit, ranking }));
  }
  return response.data.map((o) => o.id);
}

/**
 * The word ranking alone (the BM25 baseline): the store's own word search over the texts the task
 * compares (the profile text, or the customer text), the querying organization excluded unless it
 * is the known item. For similar-to-X the query is that organization's profile text, as in hybrid search.
 * `over: "profile"` searches whole profiles (name, description, categories) whatever the task: the
 * customer task's baseline over whole descriptions.
 */
export function lexicalRanking(store: OrganizationStore, task: Task["id"], q: Query, limit = K, over: "task" | "profile" = "task"): Promise<number[]> {
  return store.searchText({
    text: q.text,
    kind: task === "customer" && over === "task" ? "customer" : "profile",
    filter: task === "known-item" ? {} : { excludeIds: [q.orgId] },
    size: limit,
  });
}

/**
 * Customer-base search as the product ranked it before issue 12 item 7 (bench only, for the
 * before/after comparison): the reciprocal rank fusion of the customer-vector ranking and BM25 over
 * the customer texts, each FUSION_DEPTH deep, the querying organization excluded. Its first
 * FUSION_DEPTH places are what SearchService.similarCustomers returned then (hybrid ranking).
 */
export async function customerSearchBefore(store: OrganizationStore, embedder: Embedder, q: Query, limit = K): Promise<number[]> {
  const [vector] = await embedder.embed([q.text], "query");
  const filter = { excludeIds: [q.orgId] };
  const [vectorHits, wordIds] = await Promise.all([
    store.rank({ vector: vector!, kind: "customer", filter, offset: 0, size: FUSION_DEPTH }),
    store.searchText({ text: q.text, kind: "customer", filter, size: FUSION_DEPTH }),
  ]);
  return fusedRelevance([vectorHits.map((h) => h.id), wordIds])
    .slice(0, limit)
    .map((f) => f.id);
}

/**
 * An Embedder that remembers query vectors, so the second backend's run embeds no query again
 * (the vectors are the same: one text per model run). Documents pass through.
 */
export class QueryCachingEmbedder implements Embedder {
  private readonly cache = new Map<string, Float32Array>();
  hits = 0;
  misses = 0;

  constructor(private readonly inner: Embedder) {}

  get modelId(): string {
    return this.inner.modelId;
  }

  get dimension(): number {
    return this.inner.dimension;
  }

  async embed(texts: readonly string[], purpose: EmbeddingPurpose): Promise<Float32Array[]> {
    if (purpose !== "query" || texts.length !== 1) return this.inner.embed(texts, purpose);
    const text = texts[0]!;
    const hit = this.cache.get(text);
    if (hit) {
      this.hits++;
      return [hit];
    }
    this.misses++;
    const [vector] = await this.inner.embed([text], purpose);
    this.cache.set(text, vector!);
    return [vector!];
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * The three judged tasks, run through the product's SearchService, and the per-query numbers
 * they produce. A "method" is one way of ranking: the product's vector search on a backend with
 * a model, the BM25 baseline, or their reciprocal rank fusion.
 */
import {
  type Embedder,
  type EmbeddingPurpose,
  type SearchService,
  SimilarCustomersInput,
  SimilarToDescriptionInput,
  SimilarToOrganizationInput,
} from "@orgsim/core";
import type { Bm25Index } from "./bm25";
import type { LabelledRow } from "./datasets";
import { K, precisionAtK, reciprocalRank, reciprocalRankFusion, recallAtK } from "./metrics";

export type TaskId = "similar" | "known-item" | "customer";

/** Depth of the rankings fused by RRF (and asked of the embedded backend). */
export const FUSION_DEPTH = 100;
export const RRF_K = 60;
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
  id: TaskId;
  queries: Query[];
  /** Metric names, in report order: p10_<label> for label tasks, mrr10 and recall10 for known-item search. */
  metrics: string[];
  /** Queries whose text was cut to MAX_QUERY_CHARS. */
  truncated: number;
  /** The BM25 index that answers this task lexically. */
  bm25: Bm25Index;
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
    out.set(`p10_${label}`, precisionAtK(ranking, (id) => rows.get(id)?.labels[label] === value));
  }
  return out;
}

/** The ranking the product returns for a query of a task (ids, best first). */
export async function productRanking(search: SearchService, task: TaskId, q: Query, limit: number): Promise<number[]> {
  let response: Awaited<ReturnType<SearchService["similarToOrganization"]>>;
  if (task === "similar") {
    response = await search.similarToOrganization(SimilarToOrganizationInput.parse({ organization_id: q.orgId, limit }));
  } else if (task === "known-item") {
    response = await search.similarToDescription(SimilarToDescriptionInput.parse({ description: q.text, limit }));
  } else {
    // The organization's own customer text finds others with that customer base; it is not one of its own results.
    response = await search.similarCustomers(SimilarCustomersInput.parse({ organization_customer: q.text, exclude_ids: [q.orgId], limit }));
  }
  return response.data.map((o) => o.id);
}

/** The lexical ranking of a query: BM25 over the task's texts, the querying organization excluded unless it is the known item. */
export function lexicalRanking(task: Task, q: Query, depth = FUSION_DEPTH): number[] {
  return task.bm25.rank(q.text, depth, task.id === "known-item" ? undefined : q.orgId);
}

export const fuse = (lexical: readonly number[], vector: readonly number[]) => reciprocalRankFusion([lexical, vector], RRF_K).slice(0, K);

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

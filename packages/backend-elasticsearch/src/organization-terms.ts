/**
 * Term statistics of the organizations index for choosing a text's distinctive terms
 * (core `distinctiveTerms`): how many live documents hold each term in one word field, counted by
 * a `filters` aggregation over the whole index, so both backends count alike (live documents, all
 * shards) and pick the same terms.
 *
 * For a stored organization's own text, Elasticsearch's term vectors API gives its terms and their
 * statistics in one request that needs only the id, so it runs beside the organization's fetch.
 * Those statistics are one shard's and count deleted documents not merged away yet: they are taken
 * only where they are exact (one shard, no deleted document in any copy, which an index stats
 * request asked at the same time tells); else the terms are counted as above.
 */
import type { Client, estypes } from "@elastic/elasticsearch";
import type { TermStatistics, TextTermStatistics, VectorKind } from "@orgsim/core";
import type { IndexName, ResolvedConfig } from "./config";
import { guarded } from "./errors";
import { TEXT_FIELD } from "./organization-document";
import type { OrganizationIndex } from "./organization-index";

interface CountAggregations {
  documents: { doc_count: number };
  terms?: { buckets: Record<string, { doc_count: number }> };
}

export class OrganizationTerms {
  constructor(
    private readonly client: Client,
    private readonly config: ResolvedConfig,
    private readonly name: IndexName,
    private readonly index: OrganizationIndex,
  ) {}

  async termStatistics(terms: readonly string[], kind: VectorKind): Promise<TermStatistics> {
    const field = TEXT_FIELD[kind];
    const unique = [...new Set(terms)];
    return guarded(this.config.url, async () => {
      const info = await this.index.cached();
      if (!info) return { documents: 0, docFrequency: new Map() };
      await this.index.upgradeSchema(info);
      const response = await this.client.search<unknown, CountAggregations>({
        index: this.name.alias,
        size: 0,
        track_total_hits: false,
        aggs: {
          documents: { filter: { exists: { field } } },
          // Keys by position: terms may hold characters an aggregation key should not. (Elasticsearch refuses empty `filters`.)
          ...(unique.length ? { terms: { filters: { filters: Object.fromEntries(unique.map((term, i) => [String(i), { term: { [field]: term } }])) } } } : {}),
        },
      });
      const aggs = response.aggregations as CountAggregations;
      const buckets = aggs.terms?.buckets ?? {};
      return { documents: aggs.documents.doc_count, docFrequency: new Map(unique.map((term, i) => [term, buckets[String(i)]?.doc_count ?? 0])) };
    });
  }

  async organizationTermStatistics(id: number, kind: VectorKind): Promise<TextTermStatistics | null> {
    const field = TEXT_FIELD[kind];
    return guarded(this.config.url, async () => {
      const info = await this.index.cached();
      if (!info) return null;
      await this.index.upgradeSchema(info);
      const [vectors, exact] = await Promise.all([
        this.client.termvectors({
          index: this.name.alias,
          id: String(id),
          fields: [field],
          term_statistics: true,
          field_statistics: true,
          positions: false,
          offsets: false,
          payloads: false,
        }),
        this.shardStatisticsExact(),
      ]);
      const terms = vectors.found ? vectors.term_vectors?.[field] : undefined;
      if (!terms) return null;
      const frequency = new Map(Object.entries(terms.terms).map(([term, { term_freq }]) => [term, term_freq]));
      if (!exact) return { frequency, statistics: await this.termStatistics([...frequency.keys()], kind) };
      const docFrequency = new Map(Object.entries(terms.terms).map(([term, { doc_freq }]) => [term, doc_freq ?? 0]));
      return { frequency, statistics: { documents: terms.field_statistics?.doc_count ?? 0, docFrequency } };
    });
  }

  /** Whether one shard's term statistics are the whole index's live ones: a single shard, and no deleted document in any copy of it. */
  private async shardStatisticsExact(): Promise<boolean> {
    const stats = await this.client.indices.stats({
      index: this.name.alias,
      metric: "docs",
      level: "shards",
      filter_path: ["indices.*.shards.*.docs.deleted"],
    });
    const shards = Object.values(stats.indices ?? {}).flatMap((i) => Object.values(i.shards ?? {}));
    return shards.length === 1 && shards.every((copies: estypes.IndicesStatsShardStats[]) => copies.every((c) => (c.docs?.deleted ?? 0) === 0));
  }
}

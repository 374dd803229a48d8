/**
 * Term statistics of the organizations index for choosing a text's distinctive terms
 * (core `distinctiveTerms`): how many live documents hold each term in one word field, counted by
 * a `filters` aggregation over the whole index, so both backends count alike (live documents, all
 * shards) and pick the same terms.
 */
import type { Client } from "@elastic/elasticsearch";
import type { TermStatistics, VectorKind } from "@orgsim/core";
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
}

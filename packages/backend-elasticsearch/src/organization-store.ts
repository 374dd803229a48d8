/**
 * OrganizationStore on Elasticsearch: one document per organization in `<prefix>-organizations-v1`
 * (behind the alias `<prefix>-organizations`), with two `dense_vector` fields, keyword/number/date
 * fields for every filter, the texts searched by words, and the organization itself.
 *
 * A facade over parts, each with one reason to change: document I/O (organization-documents.ts),
 * search (organization-search.ts), customer-base search's figures (organization-figures.ts), term statistics (organization-terms.ts), lookup by name and
 * domain (organization-lookup.ts), and index administration and migration (organization-index.ts).
 */
import type { Client } from "@elastic/elasticsearch";
import type {
  CustomerBaseFigures,
  LookupQuery,
  LookupTiers,
  Organization,
  OrganizationRecord,
  OrganizationStore,
  ScoredId,
  ScoredOrganization,
  TermStatistics,
  TextTermStatistics,
  TextQuery,
  VectorKind,
  VectorModel,
  VectorQuery,
} from "@orgsim/core";
import type { IndexName, ResolvedConfig } from "./config";
import { guarded } from "./errors";
import { OrganizationDocuments } from "./organization-documents";
import { OrganizationFigures } from "./organization-figures";
import { type IndexInfo, OrganizationIndex } from "./organization-index";
import { OrganizationLookup } from "./organization-lookup";
import { OrganizationSearch } from "./organization-search";
import { OrganizationTerms } from "./organization-terms";
import { mergeSegments, type SegmentMerge } from "./segment-merge";

export { MAX_CANDIDATES, type SearchPlan } from "./search-plan";

export class ElasticsearchOrganizationStore implements OrganizationStore {
  readonly backend = "elasticsearch" as const;
  private closed = false;
  private readonly index: OrganizationIndex;
  private readonly documents: OrganizationDocuments;
  private readonly searches: OrganizationSearch;
  private readonly figures: OrganizationFigures;
  private readonly terms: OrganizationTerms;
  private readonly lookup: OrganizationLookup;

  constructor(
    private readonly client: Client,
    private readonly config: ResolvedConfig,
    private readonly name: IndexName,
    private readonly onClose: () => Promise<void> = () => client.close(),
  ) {
    this.index = new OrganizationIndex(client, config, name);
    this.documents = new OrganizationDocuments(client, config, name, this.index);
    this.searches = new OrganizationSearch(client, config, name, this.index);
    this.figures = new OrganizationFigures(client, config, name, this.index);
    this.terms = new OrganizationTerms(client, config, name, this.index);
    this.lookup = new OrganizationLookup(client, config, name, this.index);
  }

  /** Creates the index now when the model's dimension is known (else the first upsert does). */
  init(): Promise<void> {
    return this.index.init();
  }

  vectorModel(): Promise<VectorModel | null> {
    return this.index.vectorModel();
  }

  /** The index description (dims and type from the mapping, the model from `_meta`), or null when there is no index. */
  describeIndex(): Promise<IndexInfo | null> {
    return this.index.describe();
  }

  upsert(records: OrganizationRecord[], model: VectorModel): Promise<void> {
    return this.documents.upsert(records, model);
  }

  get(id: number): Promise<Organization | null> {
    return this.documents.get(id);
  }

  /** The organizations that exist among `ids`, in the order asked (duplicates once). */
  getMany(ids: number[]): Promise<Organization[]> {
    return this.documents.getMany(ids);
  }

  getVector(id: number, kind: VectorKind): Promise<Float32Array | null> {
    return this.documents.getVector(id, kind);
  }

  delete(id: number): Promise<boolean> {
    return this.documents.delete(id);
  }

  count(): Promise<number> {
    return this.documents.count();
  }

  search(query: VectorQuery): Promise<ScoredOrganization[]> {
    return this.searches.search(query);
  }

  rank(query: VectorQuery): Promise<ScoredId[]> {
    return this.searches.rank(query);
  }

  searchText(query: TextQuery): Promise<number[]> {
    return this.searches.searchText(query);
  }

  termStatistics(terms: readonly string[], kind: VectorKind): Promise<TermStatistics> {
    return this.terms.termStatistics(terms, kind);
  }
  organizationTermStatistics(id: number, kind: VectorKind): Promise<TextTermStatistics | null> {
    return this.terms.organizationTermStatistics(id, kind);
  }

  similarities(vector: Float32Array, kind: VectorKind, ids: number[], ranked?: ReadonlyMap<number, number>): Promise<Map<number, number>> {
    return this.searches.similarities(vector, kind, ids, ranked);
  }

  customerBaseFigures(vector: Float32Array, ids: number[]): Promise<Map<number, CustomerBaseFigures>> {
    return this.figures.customerBaseFigures(vector, ids);
  }

  lookUp(query: LookupQuery): Promise<LookupTiers> {
    return this.lookup.lookUp(query);
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const health = await this.client.cluster.health({ timeout: "5s" }, { requestTimeout: 5_000, maxRetries: 0 });
      return health.status !== "red";
    } catch {
      return false;
    }
  }

  /** Makes every write so far visible to searches (after writes made with `refresh: false`). */
  async refresh(): Promise<void> {
    await this.index.refresh();
  }

  /** Merges the index into one segment per 100k organizations of a shard (`orgsim optimize`, segment-merge.ts); `log` hears how it goes. */
  mergeSegments(log: (line: string) => void): Promise<SegmentMerge> {
    return guarded(this.config.url, () => mergeSegments(this.client, this.name.alias, log));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.onClose();
  }
}

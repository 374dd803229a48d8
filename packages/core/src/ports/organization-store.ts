/** Port: where organizations and their vectors live (embedded or Elasticsearch adapter). */
import type { EmployeeRange, FundingStage } from "../domain/metrics";
import type { Organization } from "../schemas/organization";

/** Which of an organization's two vectors a search compares against. */
export type VectorKind = "profile" | "customer";

export interface OrganizationRecord {
  organization: Organization;
  /** Business-profile vector (always present). */
  profileVector: Float32Array;
  /** Customer-base vector, null when the organization has no customer text. */
  customerVector: Float32Array | null;
}

/**
 * Filters in store terms, already validated and normalized by the core.
 * Every present field must hold (AND); values inside one field are alternatives (OR).
 */
export interface OrganizationFilter {
  /** Location: the place (HQ, or any office when hqOnly=false) is in one of these countries or subdivisions. */
  location?: { countries: string[]; subdivisions: string[]; hqOnly: boolean };
  employeeRanges?: EmployeeRange[];
  employeesMin?: number;
  employeesMax?: number;
  foundedYearMin?: number;
  foundedYearMax?: number;
  categories?: string[];
  fundingStages?: FundingStage[];
  lastFundingFrom?: string;
  lastFundingTo?: string;
  excludeIds?: number[];
}

export interface VectorQuery {
  vector: Float32Array;
  kind: VectorKind;
  filter: OrganizationFilter;
  /** Only hits with cosine similarity >= minScore. */
  minScore?: number;
  /** Hits to skip, then hits to return; ordered by score desc, id asc. */
  offset: number;
  size: number;
  /**
   * The vector is a stored organization's own (similar to an organization, or one organization as
   * the only seed), not a text's embedding nor several seeds blended: it sits on the data, where an
   * approximate search finds its neighbours with fewer candidates (Elasticsearch: search-plan.ts;
   * the embedded store: candidate-plan.ts, which searches a text's embedding wide at once, and tells
   * an unknown query's place from its graph).
   */
  storedVector?: boolean;
  /**
   * The caller has other work to do while this ranking runs (the hybrid ranking's word search): a
   * store may rank on another thread meanwhile. Alone, that would only add the hand-over.
   */
  concurrent?: boolean;
}

/**
 * A lexical query: BM25 (Lucene's formula, `BM25` parameters) over the text the `kind` vector
 * embeds (`lexicalTextsOf`), analyzed by `lexicalTerms`; a match on any term counts (OR).
 */
export interface TextQuery {
  text: string;
  kind: VectorKind;
  filter: OrganizationFilter;
  /** The best `size` matches are returned. */
  size: number;
}

/** How many of a store's texts of one kind hold each term (live documents only), and how many texts there are. */
export interface TermStatistics {
  documents: number;
  docFrequency: ReadonlyMap<string, number>;
}

/** The terms of one stored text, each with how many times it occurs there, and the store's TermStatistics of them. */
export interface TextTermStatistics {
  frequency: ReadonlyMap<string, number>;
  statistics: TermStatistics;
}

export interface ScoredId {
  id: number;
  /** Cosine similarity, as ScoredOrganization.score. */
  score: number;
}

export interface ScoredOrganization {
  organization: Organization;
  /** Cosine similarity of the query vector and the organization's vector. */
  score: number;
}

/**
 * A lookup by name and/or domain (keys from domain/lookup-keys.ts). The core merges the tiers, best
 * first: names that start with the query, then names holding every query word, then names where
 * every query word starts a word (each tier ⊂ the last, so one organization may be in several).
 */
export interface LookupQuery {
  /** Only organizations whose `domainKey` is this. */
  domain?: string;
  /** The query's `nameWords`; none: every organization (of the domain) is in `wordPrefixes`, by id. */
  words: string[];
  /** How many ids each tier returns at most. */
  size: number;
}

export interface LookupTiers {
  /** `nameKey` starts with the words joined by spaces; by `nameKey`, then id. */
  namePrefix: number[];
  /** Every word is one of the name's words; by id. */
  allWords: number[];
  /** Every word starts one of the name's words (the same word may serve several); by id. */
  wordPrefixes: number[];
}

/** What customer-base search weighs of one organization (domain/customer-base.ts). */
export interface CustomerBaseFigures {
  /** Cosine with its customer vector, as similarities() gives it; null when it has none. */
  customer: number | null;
  /** Cosine with its profile vector, as similarities() gives it. */
  profile: number;
  /** The data states its customers (`customer_description`, as hasExplicitCustomerText reads it) rather than the extractor guessing them. */
  customerStated: boolean;
}

/** The model a store's vectors were computed with. */
export interface VectorModel {
  modelId: string;
  dimension: number;
}

export interface OrganizationStore {
  /** The adapter names itself (search responses report it as `meta.backend`); core knows no adapter by name. */
  readonly backend: string;
  /** The model the stored vectors come from, or null while the store holds none. */
  vectorModel(): Promise<VectorModel | null>;
  /** Inserts or replaces by id; all records of a call are written together. */
  upsert(records: OrganizationRecord[], model: VectorModel): Promise<void>;
  get(id: number): Promise<Organization | null>;
  getMany(ids: number[]): Promise<Organization[]>;
  getVector(id: number, kind: VectorKind): Promise<Float32Array | null>;
  delete(id: number): Promise<boolean>;
  count(): Promise<number>;
  search(query: VectorQuery): Promise<ScoredOrganization[]>;
  /**
   * The same ranking as search(), ids and scores only, for hybrid search, which fetches documents
   * and exact scores for its page alone. Scores may be the backend's own approximation (float32).
   */
  rank(query: VectorQuery): Promise<ScoredId[]>;
  /**
   * Ids of the organizations whose `kind` text best matches the query, best first (BM25 desc, id
   * asc), filtered like search(); only organizations that have a `kind` vector.
   */
  searchText(query: TextQuery): Promise<number[]>;
  /** How many `kind` texts hold each of `terms` (live documents), and how many `kind` texts there are: for choosing a text's distinctive terms. */
  termStatistics(terms: readonly string[], kind: VectorKind): Promise<TermStatistics>;
  /**
   * The terms of organization `id`'s `kind` text, as searchText matches it, with their
   * termStatistics; null when there is no such organization or its text has no term. One step, so
   * a store may answer without its caller reading the text first.
   */
  organizationTermStatistics(id: number, kind: VectorKind): Promise<TextTermStatistics | null>;
  /**
   * Cosine similarity of `vector` and the `kind` vector of each of `ids` that has one (as search()
   * scores it). `ranked`: the scores rank() gave some of them for this vector and kind; a store
   * whose rank() scores are these cosines may take them instead of scoring those ids again.
   */
  similarities(vector: Float32Array, kind: VectorKind, ids: number[], ranked?: ReadonlyMap<number, number>): Promise<Map<number, number>>;
  /**
   * For each of `ids` that exists: its two cosines with `vector` and whether its customer text is
   * stated; one call, so customer-base search reads no documents and (Elasticsearch) makes one request.
   */
  customerBaseFigures(vector: Float32Array, ids: number[]): Promise<Map<number, CustomerBaseFigures>>;
  /** Organizations by name words and domain, in the tiers of LookupTiers. */
  lookUp(query: LookupQuery): Promise<LookupTiers>;
  /** True when the backend answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * How an organization is stored in Elasticsearch: the mapping, the document (filter fields,
 * the two vectors, the organization itself), and the store's filters as an ES query.
 */
import type { estypes } from "@elastic/elasticsearch";
import {
  BM25,
  domainKey,
  hasExplicitCustomerText,
  LEXICAL_STOP_WORDS,
  lexicalTextsOf,
  nameWords,
  type Organization,
  type OrganizationFilter,
  type OrganizationRecord,
  type VectorKind,
  type VectorModel,
} from "@orgsim/core";
import { DEFAULT_HNSW, type HnswOptions, isGraph, type VectorIndexType } from "./config";

export const VECTOR_FIELD: Record<VectorKind, "profile_vector" | "customer_vector"> = {
  profile: "profile_vector",
  customer: "customer_vector",
};

/** The word-searched text of each vector kind (the text that vector embeds). */
export const TEXT_FIELD: Record<VectorKind, "profile_text" | "customer_text"> = {
  profile: "profile_text",
  customer: "customer_text",
};

/**
 * Schema 2 added the word fields, schema 3 the lookup keys, schema 4 `customer_stated`; older
 * indexes are upgraded in place (organization-index.ts).
 */
export const ORGSIM_SCHEMA = 4;

/**
 * The analysis and similarity of the word fields, built from the core's definitions so that
 * Elasticsearch produces exactly the terms `lexicalTerms` does (its standard tokenizer, lower case,
 * the core's stop words; all in the server itself, no analysis plugin) and scores them with the same BM25.
 */
export const WORD_SETTINGS = {
  analysis: {
    filter: { orgsim_stop: { type: "stop", stopwords: [...LEXICAL_STOP_WORDS] } },
    analyzer: { orgsim_text: { type: "custom", tokenizer: "standard", filter: ["lowercase", "orgsim_stop"] } },
  },
  similarity: { orgsim_bm25: { type: "BM25", k1: BM25.k1, b: BM25.b } },
} satisfies estypes.IndicesIndexSettings;

/** Term frequencies only: BM25 needs no positions. */
export const WORD_FIELD: estypes.MappingTextProperty = { type: "text", analyzer: "orgsim_text", similarity: "orgsim_bm25", index_options: "freqs" };

/** The index `_meta`: which model the vectors come from (read back by vectorModel()). */
export interface IndexMeta {
  orgsim_schema: 1 | 2 | 3 | 4;
  model_id: string | null;
  dimension: number;
}

export interface OrganizationDocument {
  id: number;
  hq_country?: string;
  hq_subdivision?: string;
  /** Every location, HQ included (the any-office location filter). */
  location_countries: string[];
  location_subdivisions: string[];
  employee_count?: number;
  employee_range?: string;
  founded_year?: number;
  categories: string[];
  last_round_stage?: string;
  last_round_date?: string;
  profile_vector: number[];
  /** Absent when the organization has no customer text: such organizations are no customer-search candidates. */
  customer_vector?: number[];
  /** The texts searched by words (lexicalTextsOf); the customer text only beside a customer vector. */
  profile_text: string;
  customer_text?: string;
  /** The lookup keys (core lookup-keys.ts): the name's words, and joined by spaces for prefixes; the domain's host. */
  name_key: string;
  name_words: string[];
  domain_key?: string;
  /** The data states its customers (hasExplicitCustomerText): read from doc values by customer-base search, which then parses no `_source`. */
  customer_stated: boolean;
  /** The organization as returned by reads (not indexed). */
  doc: Organization;
}

const keyword = { type: "keyword" } as const;

/** The schema-3 fields (derivedFieldsOf). */
export const LOOKUP_FIELDS = { name_key: keyword, name_words: keyword, domain_key: keyword } satisfies Record<string, estypes.MappingProperty>;
/** The schema-4 field (derivedFieldsOf). */
export const STATED_FIELD = { customer_stated: { type: "boolean" } } satisfies Record<string, estypes.MappingProperty>;

export function organizationMappings(
  dimension: number,
  indexType: VectorIndexType,
  model: VectorModel | null,
  hnsw: HnswOptions = DEFAULT_HNSW,
): estypes.MappingTypeMapping {
  const vector: estypes.MappingDenseVectorProperty = {
    type: "dense_vector",
    dims: dimension,
    element_type: "float",
    similarity: "cosine",
    index: true,
    index_options: isGraph(indexType) ? { type: indexType, m: hnsw.m, ef_construction: hnsw.efConstruction } : { type: indexType },
  };
  const meta: IndexMeta = { orgsim_schema: ORGSIM_SCHEMA, model_id: model?.modelId ?? null, dimension };
  return {
    dynamic: "strict",
    _meta: meta as unknown as estypes.Metadata,
    properties: {
      id: { type: "long" },
      hq_country: keyword,
      hq_subdivision: keyword,
      location_countries: keyword,
      location_subdivisions: keyword,
      employee_count: { type: "integer" },
      employee_range: keyword,
      founded_year: { type: "short" },
      categories: keyword,
      last_round_stage: keyword,
      last_round_date: { type: "date", format: "strict_date" },
      profile_vector: vector,
      customer_vector: vector,
      profile_text: WORD_FIELD,
      customer_text: WORD_FIELD,
      ...LOOKUP_FIELDS,
      ...STATED_FIELD,
      doc: { type: "object", enabled: false },
    },
  };
}

const uniq = (values: (string | null | undefined)[]) => [...new Set(values.filter((v): v is string => !!v))];
/**
 * Vectors go into JSON as decimals that read back as the same float32 components. The float64
 * value of a float32 takes about 19 characters; a component in [2^-10, 2), nearly every one of a
 * unit vector, reads back from its nearest multiple of 1e-10 (checked for every float32 there), in
 * about 12. Shorter bulk bodies: less to serialize, send, parse and keep in `_source`.
 */
export const vectorToJson = (v: Float32Array): number[] => Array.from(v, shortExactDecimal);
const shortExactDecimal = (x: number): number => {
  const magnitude = Math.abs(x);
  return magnitude >= 2 ** -10 && magnitude < 2 ? Math.round(x * 1e10) / 1e10 : x;
};

export function toDocument({ organization: o, profileVector, customerVector }: OrganizationRecord): OrganizationDocument {
  const { headquarters, offices } = o.location;
  const places = headquarters ? [headquarters, ...offices] : offices;
  const lastRound = o.metrics.funding?.last_round ?? null;
  const doc: OrganizationDocument = {
    id: o.id,
    location_countries: uniq(places.map((p) => p.country_code)),
    location_subdivisions: uniq(places.map((p) => p.subdivision_code)),
    categories: uniq(o.categories),
    profile_vector: vectorToJson(profileVector),
    ...derivedFieldsOf(o, customerVector !== null),
    doc: o,
  };
  // null = absent: an absent value never matches a term or a range, as the contract wants.
  if (headquarters?.country_code) doc.hq_country = headquarters.country_code;
  if (headquarters?.subdivision_code) doc.hq_subdivision = headquarters.subdivision_code;
  if (o.metrics.employee_count !== null) doc.employee_count = o.metrics.employee_count;
  if (o.metrics.employee_range !== null) doc.employee_range = o.metrics.employee_range;
  if (o.metrics.founded_year !== null) doc.founded_year = o.metrics.founded_year;
  if (lastRound?.stage) doc.last_round_stage = lastRound.stage;
  if (lastRound?.announced_on) doc.last_round_date = lastRound.announced_on.slice(0, 10);
  if (customerVector) doc.customer_vector = vectorToJson(customerVector);
  return doc;
}

/** The fields of an organization's document computed from the organization: the word texts, the lookup keys and whether its customers are stated. */
export function derivedFieldsOf(
  o: Organization,
  hasCustomerVector: boolean,
): Pick<OrganizationDocument, "profile_text" | "customer_text" | "name_key" | "name_words" | "domain_key" | "customer_stated"> {
  const texts = lexicalTextsOf(o);
  const words = nameWords(o.name);
  const domain = o.domain ? domainKey(o.domain) : null;
  return {
    profile_text: texts.profile ?? o.name,
    ...(hasCustomerVector && texts.customer ? { customer_text: texts.customer } : {}),
    name_key: words.join(" "),
    name_words: [...new Set(words)],
    ...(domain ? { domain_key: domain } : {}),
    customer_stated: hasExplicitCustomerText(o),
  };
}

/**
 * The store's filter as one bool query (every clause a non-scoring filter), for `knn.filter`: the
 * shared filter, and the excluded ids beside it.
 */
export function filterQuery(f: OrganizationFilter, kind: VectorKind): estypes.QueryDslQueryContainer {
  const excluded = exclusionClauses(f);
  return excluded.length ? { bool: { filter: [sharedFilterQuery(f, kind)], must_not: excluded } } : sharedFilterQuery(f, kind);
}

/** The excluded ids (a search's seeds, mostly) as `must_not` clauses: none when there are none. */
export function exclusionClauses(f: OrganizationFilter): estypes.QueryDslQueryContainer[] {
  return f.excludeIds?.length ? [{ ids: { values: f.excludeIds.map(String) } }] : [];
}

/**
 * The store's filter without its excluded ids. Kept apart from them, it is the same query for every
 * search with the same filter, so Elasticsearch's query cache can keep its matches; with a search's
 * own ids inside, it would be a new query each time.
 * It always holds an `exists` on the searched vector field, so the filter is never empty: Lucene
 * then compares exhaustively whenever a segment has no more matches than `num_candidates`.
 */
export function sharedFilterQuery(f: OrganizationFilter, kind: VectorKind): estypes.QueryDslQueryContainer {
  const filter: estypes.QueryDslQueryContainer[] = [{ exists: { field: VECTOR_FIELD[kind] } }];
  if (f.location) {
    const { countries, subdivisions, hqOnly } = f.location;
    const [countryField, subdivisionField] = hqOnly ? ["hq_country", "hq_subdivision"] : ["location_countries", "location_subdivisions"];
    // The place is in one of the countries OR one of the subdivisions.
    const should: estypes.QueryDslQueryContainer[] = [];
    if (countries.length) should.push({ terms: { [countryField]: countries } });
    if (subdivisions.length) should.push({ terms: { [subdivisionField]: subdivisions } });
    filter.push(should.length ? { bool: { should, minimum_should_match: 1 } } : { bool: { must_not: { match_all: {} } } });
  }
  if (f.employeeRanges) filter.push({ terms: { employee_range: f.employeeRanges } });
  if (f.employeesMin !== undefined || f.employeesMax !== undefined) {
    filter.push({
      range: {
        employee_count: { ...(f.employeesMin !== undefined ? { gte: f.employeesMin } : {}), ...(f.employeesMax !== undefined ? { lte: f.employeesMax } : {}) },
      },
    });
  }
  if (f.foundedYearMin !== undefined || f.foundedYearMax !== undefined) {
    filter.push({
      range: {
        founded_year: {
          ...(f.foundedYearMin !== undefined ? { gte: f.foundedYearMin } : {}),
          ...(f.foundedYearMax !== undefined ? { lte: f.foundedYearMax } : {}),
        },
      },
    });
  }
  if (f.categories) filter.push({ terms: { categories: f.categories } });
  if (f.fundingStages) filter.push({ terms: { last_round_stage: f.fundingStages } });
  if (f.lastFundingFrom || f.lastFundingTo) {
    // Inclusive bounds on whole days (the field holds dates at midnight).
    filter.push({
      range: {
        last_round_date: {
          format: "strict_date",
          ...(f.lastFundingFrom ? { gte: f.lastFundingFrom.slice(0, 10) } : {}),
          ...(f.lastFundingTo ? { lte: f.lastFundingTo.slice(0, 10) } : {}),
        },
      },
    });
  }
  return { bool: { filter } };
}

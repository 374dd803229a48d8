/**
 * OrganizationStore on Elasticsearch: one document per organization in `<prefix>-organizations-v1`
 * (behind the alias `<prefix>-organizations`), with two `dense_vector` fields, keyword/number/date
 * fields for every filter, the texts searched by words, and the organization itself. Vector searches
 * are one top-level `knn` with every filter inside `knn.filter` (filtered before ranking), re-scored
 * exactly from the float vectors; word searches are a BM25 `match` under the same filter.
 */
import type { Client, estypes } from "@elastic/elasticsearch";
import {
  lexicalTerms,
  type Organization,
  type OrganizationRecord,
  type OrganizationStore,
  OrgsimError,
  type ScoredId,
  type ScoredOrganization,
  type TextQuery,
  type VectorKind,
  type VectorModel,
  type VectorQuery,
} from "@orgsim/core";
import { type IndexName, isQuantized, type ResolvedConfig, type VectorIndexType } from "./config";
import { ensureIndex, isNotFound, scanIds } from "./elastic";
import { guarded, UNAVAILABLE_STATUSES } from "./errors";
import {
  filterQuery,
  type IndexMeta,
  ORGSIM_SCHEMA,
  type OrganizationDocument,
  organizationMappings,
  TEXT_FIELD,
  toDocument,
  VECTOR_FIELD,
  WORD_FIELD,
  WORD_SETTINGS,
  wordFieldsOf,
} from "./organization-document";
import { cosine, squaredNorm } from "./vector-math";

/** Elasticsearch's ceiling for `k` and `num_candidates`. */
export const MAX_CANDIDATES = 10_000;
/** Hits fetched beyond the page on each side, so exact re-scoring and id tie-breaks see the neighbours. */
const MARGIN = 10;
/** How long the index description and the vector model are trusted before being read again. */
const CACHE_MS = 5_000;

/** What the store knows about its index. */
interface IndexInfo {
  /** The concrete index behind the alias. */
  index: string;
  dimension: number;
  type: VectorIndexType;
  meta: Partial<IndexMeta>;
  /** The index has the word fields (schema 2); older indexes are upgraded on first use. */
  words: boolean;
}

export interface SearchPlan {
  /** `knn.k`: hits ES keeps (the page, and a margin for ties). */
  k: number;
  numCandidates: number;
  from: number;
  size: number;
  oversample: number | null;
  similarity: number | null;
}

export class ElasticsearchOrganizationStore implements OrganizationStore {
  readonly backend = "elasticsearch" as const;
  private closed = false;
  private info: { value: IndexInfo; at: number } | null = null;
  private model: { value: VectorModel | null; at: number } | null = null;
  private upgrading: Promise<void> | null = null;

  constructor(
    private readonly client: Client,
    private readonly config: ResolvedConfig,
    private readonly name: IndexName,
    private readonly onClose: () => Promise<void> = () => client.close(),
  ) {}

  /** Creates the index now when the model's dimension is known (else the first upsert does). */
  async init(): Promise<void> {
    if (this.config.dimension === undefined) return;
    const dimension = this.config.dimension;
    await guarded(this.config.url, async () => {
      await ensureIndex(this.client, this.name, () => this.indexSpec(dimension, null));
      await this.upgradeWordFields(this.validate(await this.readIndex()));
    });
  }

  async vectorModel(): Promise<VectorModel | null> {
    if (this.model && Date.now() - this.model.at < CACHE_MS) return this.model.value;
    return guarded(this.config.url, async () => {
      const info = await this.readIndex();
      let value: VectorModel | null = null;
      // No documents, no vectors: any model may be written next.
      if (info?.meta.model_id && (await this.countDocuments()) > 0) value = { modelId: info.meta.model_id, dimension: info.dimension };
      this.model = { value, at: Date.now() };
      return value;
    });
  }

  async upsert(records: OrganizationRecord[], model: VectorModel): Promise<void> {
    if (records.length === 0) return;
    for (const { organization: o, profileVector, customerVector } of records) {
      for (const v of [profileVector, customerVector]) {
        if (!v) continue;
        if (v.length !== model.dimension) {
          throw new OrgsimError("CONFLICT", `Organization ${o.id} has a ${v.length}-d vector but model ${model.modelId} is ${model.dimension}-d`);
        }
        // Elasticsearch refuses zero vectors for cosine; say so before writing anything.
        if (squaredNorm(v) === 0) throw new OrgsimError("VALIDATION_FAILED", `Organization ${o.id} has a zero vector, which has no cosine similarity`);
      }
    }
    await guarded(this.config.url, async () => {
      await this.prepareFor(model);
      const ids = records.map((r) => String(r.organization.id));
      // All or nothing: what the batch replaces is read first, to be put back should any write fail.
      const previous = await this.documents(ids);
      const operations = records.flatMap((r) => [{ index: { _index: this.name.alias, _id: String(r.organization.id) } }, toDocument(r)]);
      const response = await this.client.bulk({ operations, refresh: this.config.refresh });
      this.model = null;
      if (response.errors) {
        const failed = response.items.flatMap((item, i) => (item.index?.error ? [{ id: records[i]?.organization.id, error: item.index.error, status: item.index.status }] : []));
        const written = response.items.flatMap((item) => (item.index && !item.index.error ? [item.index] : []));
        await this.putBack(written, previous);
        const first = failed[0];
        if (failed.every((f) => UNAVAILABLE_STATUSES.has(f.status))) {
          // Shed load (a full write queue, a shard not ready): the whole batch may be sent again.
          throw new OrgsimError("BACKEND_UNAVAILABLE", `Elasticsearch is overloaded and refused ${failed.length} of ${records.length} organizations (HTTP ${first?.status}); nothing was written; retry shortly`, {
            backend: "elasticsearch",
            reason: "overloaded",
            failed_ids: failed.map((f) => f.id),
          });
        }
        // The reasons are Elasticsearch's internals: for the log, not the caller.
        console.error(`orgsim: Elasticsearch refused organizations ${failed.map((f) => `${f.id} (${f.error.type}: ${f.error.reason})`).join(", ")}; the batch was undone`);
        throw new OrgsimError("INTERNAL", `Elasticsearch refused ${failed.length} of ${records.length} organizations (first: ${first?.id}); nothing was written`, {
          failed_ids: failed.map((f) => f.id),
        });
      }
    });
  }

  /** The stored documents (whole sources) of those of `ids` that exist. */
  private async documents(ids: string[]): Promise<Map<string, OrganizationDocument>> {
    const found = new Map<string, OrganizationDocument>();
    const response = await this.client.mget<OrganizationDocument>({ index: this.name.alias, ids });
    for (const d of response.docs) if ("found" in d && d.found && d._source) found.set(d._id, d._source);
    return found;
  }

  /**
   * Undoes the writes of a failed batch: each written document goes back to what it replaced, or
   * away when it was new; each conditioned on being still the version this batch wrote, so a later
   * write by someone else stays.
   */
  private async putBack(written: estypes.BulkResponseItem[], previous: Map<string, OrganizationDocument>): Promise<void> {
    if (written.length === 0) return;
    const operations = written.flatMap((item): estypes.BulkRequest["operations"] & object => {
      const id = item._id as string;
      const version = { _index: this.name.alias, _id: id, if_seq_no: item._seq_no as number, if_primary_term: item._primary_term as number };
      const before = previous.get(id);
      return before ? [{ index: version }, before] : [{ delete: version }];
    });
    const response = await this.client.bulk({ operations, refresh: this.config.refresh });
    const stuck = response.items.filter((item) => {
      const result = item.index ?? item.delete;
      return result?.error && result.status !== 409;
    });
    if (stuck.length > 0) {
      throw new OrgsimError("INTERNAL", `Elasticsearch refused part of a batch, and ${stuck.length} of its writes could not be undone`, {
        ids: stuck.map((item) => (item.index ?? item.delete)?._id),
      });
    }
  }

  async get(id: number): Promise<Organization | null> {
    return guarded(this.config.url, async () => {
      try {
        const response = await this.client.get<Pick<OrganizationDocument, "doc">>({ index: this.name.alias, id: String(id), _source_includes: ["doc"] });
        return response._source?.doc ?? null;
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    });
  }

  /** The organizations that exist among `ids`, in the order asked (duplicates once). */
  async getMany(ids: number[]): Promise<Organization[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    return guarded(this.config.url, async () => {
      try {
        const response = await this.client.mget<Pick<OrganizationDocument, "doc">>({ index: this.name.alias, ids: unique.map(String), _source_includes: ["doc"] });
        return response.docs.flatMap((d) => ("found" in d && d.found && d._source ? [d._source.doc] : []));
      } catch (error) {
        if (isNotFound(error)) return [];
        throw error;
      }
    });
  }

  async getVector(id: number, kind: VectorKind): Promise<Float32Array | null> {
    const field = VECTOR_FIELD[kind];
    return guarded(this.config.url, async () => {
      try {
        const response = await this.client.get<Partial<OrganizationDocument>>({ index: this.name.alias, id: String(id), _source_includes: [field] });
        const vector = response._source?.[field];
        return vector ? Float32Array.from(vector) : null;
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    });
  }

  async delete(id: number): Promise<boolean> {
    return guarded(this.config.url, async () => {
      try {
        const response = await this.client.delete({ index: this.name.alias, id: String(id), refresh: this.config.refresh });
        this.model = null;
        return response.result === "deleted";
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    });
  }

  async count(): Promise<number> {
    return guarded(this.config.url, () => this.countDocuments());
  }

  async search(query: VectorQuery): Promise<ScoredOrganization[]> {
    return this.knn(query, true);
  }

  async rank(query: VectorQuery): Promise<ScoredId[]> {
    return (await this.knn(query, false)).map(({ organization, score }) => ({ id: organization.id, score }));
  }

  /**
   * The kNN ranking, with the organizations and exact scores; or only ids with Elasticsearch's own
   * float32 scores (no `_source`: parsing it is most of a big ranking's cost).
   */
  private async knn(query: VectorQuery, withDocuments: true): Promise<ScoredOrganization[]>;
  private async knn(query: VectorQuery, withDocuments: false): Promise<{ organization: Pick<Organization, "id">; score: number }[]>;
  private async knn(query: VectorQuery, withDocuments: boolean): Promise<{ organization: Pick<Organization, "id">; score: number }[]> {
    const k = query.offset + query.size;
    if (k <= 0 || query.size <= 0) return [];
    if (k > MAX_CANDIDATES) throw new OrgsimError("VALIDATION_FAILED", `Elasticsearch ranks at most ${MAX_CANDIDATES} hits; asked for ${k}`);
    return guarded(this.config.url, async () => {
      const info = await this.cachedIndex();
      if (!info) return [];
      if (query.vector.length !== info.dimension) {
        throw new OrgsimError("CONFLICT", `The query vector has ${query.vector.length} dimensions; the stored vectors have ${info.dimension}`);
      }
      const field = VECTOR_FIELD[query.kind];
      const filter = filterQuery(query.filter, query.kind);
      const vector = Array.from(query.vector);
      let hits: estypes.SearchHit<Pick<OrganizationDocument, "doc" | "profile_vector" | "customer_vector">>[];
      let plan = this.plan(query, info.type, Math.min(MAX_CANDIDATES, k + MARGIN), false);
      for (;;) {
        const response = await this.client.search<Pick<OrganizationDocument, "doc" | "profile_vector" | "customer_vector">>({
          index: this.name.alias,
          knn: {
            field,
            query_vector: vector,
            k: plan.k,
            num_candidates: plan.numCandidates,
            filter,
            ...(plan.similarity !== null ? { similarity: plan.similarity } : {}),
            ...(plan.oversample !== null ? { rescore_vector: { oversample: plan.oversample } } : {}),
          },
          // Equal scores by id ascending, within the k hits kept.
          sort: [{ _score: { order: "desc" } }, { id: { order: "asc" } }],
          from: plan.from,
          size: plan.size,
          // Without documents, no _source at all: ES parses each hit's whole stored source to filter it.
          _source: withDocuments ? { includes: ["doc", field] } : false,
          track_total_hits: false,
        });
        hits = response.hits.hits;
        // A tie on the page's last score running to the end of the k hits may hide lower ids past k: keep more.
        const lastOfPage = hits[k - 1 - plan.from];
        const lastKept = hits[plan.k - 1 - plan.from];
        if (plan.k < MAX_CANDIDATES && lastOfPage && lastKept && lastKept._score === lastOfPage._score) {
          plan = this.plan(query, info.type, Math.min(MAX_CANDIDATES, plan.k * 4), true);
          continue;
        }
        break;
      }

      if (!withDocuments) {
        // Elasticsearch's own cosine (float32; `_score` = (1 + cosine) / 2, re-scored with the float vectors when quantized).
        const minScore = query.minScore ?? Number.NEGATIVE_INFINITY;
        return hits
          .map((hit) => ({ organization: { id: Number(hit._id) }, score: 2 * (hit._score ?? 0) - 1 }))
          .filter((h) => h.score >= minScore)
          .slice(query.offset - plan.from, k - plan.from);
      }
      // Exact float64 scores from the float32 vectors, then score desc, id asc; then the page.
      const q = Float64Array.from(query.vector);
      const qNorm = squaredNorm(q);
      const minScore = query.minScore ?? Number.NEGATIVE_INFINITY;
      const scored = hits.flatMap((hit) => {
        const source = hit._source;
        const v = source?.[field];
        if (!source || !v) return [];
        const score = cosine(q, qNorm, v);
        return score >= minScore ? [{ organization: source.doc, score }] : [];
      });
      scored.sort((a, b) => b.score - a.score || a.organization.id - b.organization.id);
      return scored.slice(query.offset - plan.from, k - plan.from);
    });
  }

  async searchText(query: TextQuery): Promise<number[]> {
    // Each distinct term once: a match query would count a repeated term again, the BM25 of the core does not.
    const terms = [...new Set(lexicalTerms(query.text))];
    if (query.size <= 0 || terms.length === 0) return [];
    if (query.size > MAX_CANDIDATES) throw new OrgsimError("VALIDATION_FAILED", `Elasticsearch ranks at most ${MAX_CANDIDATES} hits; asked for ${query.size}`);
    return guarded(this.config.url, async () => {
      const info = await this.cachedIndex();
      if (!info) return [];
      await this.upgradeWordFields(info);
      const response = await this.client.search({
        index: this.name.alias,
        // BM25 of the whole index, as the core defines it: each shard alone would score with its own
        // term and length statistics. (On one shard Elasticsearch skips the extra round.)
        search_type: "dfs_query_then_fetch",
        query: { bool: { must: [{ match: { [TEXT_FIELD[query.kind]]: { query: terms.join(" ") } } }], filter: [filterQuery(query.filter, query.kind)] } },
        sort: [{ _score: { order: "desc" } }, { id: { order: "asc" } }],
        size: query.size,
        _source: false,
        track_total_hits: false,
      });
      return response.hits.hits.map((hit) => Number(hit._id));
    });
  }

  async similarities(vector: Float32Array, kind: VectorKind, ids: number[]): Promise<Map<number, number>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const field = VECTOR_FIELD[kind];
    return guarded(this.config.url, async () => {
      const info = await this.cachedIndex();
      if (!info) return new Map();
      if (vector.length !== info.dimension) {
        throw new OrgsimError("CONFLICT", `The query vector has ${vector.length} dimensions; the stored vectors have ${info.dimension}`);
      }
      const response = await this.client.mget<Partial<OrganizationDocument>>({ index: this.name.alias, ids: unique.map(String), _source_includes: [field] });
      const q = Float64Array.from(vector);
      const qNorm = squaredNorm(q);
      const out = new Map<number, number>();
      for (const d of response.docs) {
        const v = "found" in d && d.found ? d._source?.[field] : undefined;
        if (v) out.set(Number(d._id), cosine(q, qNorm, v));
      }
      return out;
    });
  }

  /**
   * The knn parameters for a query: ES keeps `keep` hits; the page is fetched with MARGIN hits on
   * each side, or through the last kept hit (`throughLast`) when a tie must be followed.
   */
  plan(query: Pick<VectorQuery, "offset" | "size" | "minScore">, type: VectorIndexType, keep: number, throughLast: boolean): SearchPlan {
    const k = query.offset + query.size;
    const numCandidates = this.config.exact ? MAX_CANDIDATES : Math.min(MAX_CANDIDATES, Math.max(this.config.numCandidates, 10 * keep));
    const rescoring = isQuantized(type) && this.config.oversample > 0;
    // The `similarity` floor is the raw cosine (not the (1 + cos) / 2 score); lowered a little below
    // min_score because ES computes in float32 (or, without re-scoring, on quantized vectors), then
    // applied exactly here.
    const slack = isQuantized(type) && !rescoring ? 0.05 : 1e-5;
    const similarity = query.minScore !== undefined && query.minScore - slack > -1 ? query.minScore - slack : null;
    const from = Math.max(0, query.offset - MARGIN);
    return { k: keep, numCandidates, from, size: (throughLast ? keep : Math.min(keep, k + MARGIN)) - from, oversample: rescoring ? this.config.oversample : null, similarity };
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.onClose();
  }

  /** The index description (dims and type from the mapping, the model from `_meta`), or null when there is no index. */
  async describeIndex(): Promise<IndexInfo | null> {
    return guarded(this.config.url, () => this.readIndex());
  }

  private async cachedIndex(): Promise<IndexInfo | null> {
    if (this.info && Date.now() - this.info.at < CACHE_MS) return this.info.value;
    return this.readIndex();
  }

  private async readIndex(): Promise<IndexInfo | null> {
    let response: estypes.IndicesGetMappingResponse;
    try {
      response = await this.client.indices.getMapping({ index: this.name.alias });
    } catch (error) {
      if (isNotFound(error)) {
        this.info = null;
        return null;
      }
      throw error;
    }
    const entries = Object.entries(response);
    if (entries.length !== 1) {
      throw new OrgsimError("INTERNAL", `${this.name.alias} resolves to ${entries.length} indices (${entries.map(([n]) => n).join(", ")}); it must name exactly one`);
    }
    const [index, { mappings }] = entries[0] as [string, estypes.IndicesGetMappingIndexMappingRecord];
    const profile = mappings.properties?.profile_vector as estypes.MappingDenseVectorProperty | undefined;
    const customer = mappings.properties?.customer_vector as estypes.MappingDenseVectorProperty | undefined;
    if (profile?.type !== "dense_vector" || customer?.type !== "dense_vector" || !profile.dims || profile.dims !== customer.dims || profile.similarity !== "cosine") {
      throw new OrgsimError(
        "INTERNAL",
        `Index ${index} (alias ${this.name.alias}) was not made by orgsim: it needs profile_vector and customer_vector as dense_vector fields of equal dims with cosine similarity`,
      );
    }
    const value: IndexInfo = {
      index,
      dimension: profile.dims,
      type: (profile.index_options?.type ?? "int8_hnsw") as VectorIndexType,
      meta: (mappings._meta ?? {}) as Partial<IndexMeta>,
      // Schema 2 is written last by the upgrade, so an upgrade cut short is taken up again.
      words:
        mappings.properties?.profile_text?.type === "text" &&
        mappings.properties?.customer_text?.type === "text" &&
        ((mappings._meta as Partial<IndexMeta> | undefined)?.orgsim_schema ?? 1) >= ORGSIM_SCHEMA,
    };
    this.info = { value, at: Date.now() };
    return value;
  }

  private validate(info: IndexInfo | null): IndexInfo {
    if (!info) throw new OrgsimError("INTERNAL", `Index ${this.name.alias} is missing`);
    return info;
  }

  private indexSpec(dimension: number, model: VectorModel | null) {
    return {
      settings: { number_of_shards: this.config.shards, number_of_replicas: this.config.replicas, ...WORD_SETTINGS },
      mappings: organizationMappings(dimension, this.config.quantization, model),
    };
  }

  private async countDocuments(): Promise<number> {
    try {
      return (await this.client.count({ index: this.name.alias })).count;
    } catch (error) {
      if (isNotFound(error)) return 0;
      throw error;
    }
  }

  /**
   * Makes sure the index exists and takes vectors of `model`: refuses another model or dimension
   * while documents exist; an empty index takes any model (re-created when the dimension changes).
   */
  private async prepareFor(model: VectorModel): Promise<void> {
    await this.admitModel(model);
    // The mapping is strict: documents carry the word fields, so an older index must have them first.
    await this.upgradeWordFields(this.validate(await this.readIndex()));
  }

  private async admitModel(model: VectorModel): Promise<void> {
    await ensureIndex(this.client, this.name, () => this.indexSpec(model.dimension, model));
    let info = this.validate(await this.readIndex());
    const sameModel = info.meta.model_id === model.modelId;
    if (info.dimension === model.dimension && sameModel) return;

    const documents = await this.countDocuments();
    if (documents > 0) {
      if (info.meta.model_id && !sameModel) {
        throw new OrgsimError(
          "CONFLICT",
          `This store holds vectors of model ${info.meta.model_id} (${info.dimension}-d); refusing vectors of ${model.modelId} (${model.dimension}-d). ` +
            "Use the store's model, or re-import into an empty store",
          { stored_model: info.meta.model_id, stored_dimension: info.dimension, model: model.modelId, dimension: model.dimension },
        );
      }
      if (info.dimension !== model.dimension) {
        throw new OrgsimError(
          "CONFLICT",
          `Index ${info.index} maps its vector fields with ${info.dimension} dimensions and holds ${documents} organizations; model ${model.modelId} is ${model.dimension}-d. ` +
            "Use a model of that dimension, or another index prefix",
          { index: info.index, index_dimension: info.dimension, model: model.modelId, dimension: model.dimension },
        );
      }
    }
    if (info.dimension !== model.dimension) {
      // Empty: nothing is lost by making the index again with the new dimension.
      await this.client.indices.delete({ index: info.index });
      this.info = null;
      await ensureIndex(this.client, { alias: this.name.alias, index: info.index }, () => this.indexSpec(model.dimension, model));
      info = this.validate(await this.readIndex());
      if (info.dimension !== model.dimension) {
        throw new OrgsimError("CONFLICT", `Index ${info.index} was re-created by someone else with ${info.dimension}-d vectors meanwhile; model ${model.modelId} is ${model.dimension}-d`);
      }
    }
    if (info.meta.model_id !== model.modelId) {
      // The schema stays what it is: upgradeWordFields moves it.
      const meta: IndexMeta = { orgsim_schema: info.meta.orgsim_schema ?? 1, model_id: model.modelId, dimension: model.dimension };
      await this.client.indices.putMapping({ index: this.name.alias, _meta: meta as unknown as estypes.Metadata });
      this.info = null;
    }
    this.model = null;
  }

  /**
   * Brings an index made before word search (schema 1) up to schema 2, keeping every document:
   * the analyzer is added while the index is briefly closed (analysis settings are static), then
   * the two word fields, then each document gets its texts computed from its stored organization.
   */
  private async upgradeWordFields(info: IndexInfo): Promise<void> {
    if (info.words) return;
    // Concurrent first searches share one upgrade.
    this.upgrading ??= this.addWordFields(info.index).finally(() => {
      this.upgrading = null;
    });
    await this.upgrading;
  }

  private async addWordFields(index: string): Promise<void> {
    const settings = (await this.client.indices.getSettings({ index, name: "index.analysis.analyzer.orgsim_text*" }))[index]?.settings;
    if (!settings?.index?.analysis) {
      await this.client.indices.close({ index, wait_for_active_shards: 0 });
      try {
        await this.client.indices.putSettings({ index, settings: WORD_SETTINGS });
      } finally {
        await this.client.indices.open({ index, wait_for_active_shards: 1 });
      }
      await this.client.cluster.health({ index, wait_for_status: "yellow", timeout: "60s" });
    }
    await this.client.indices.putMapping({ index, properties: { profile_text: WORD_FIELD, customer_text: WORD_FIELD } });
    const missing = { bool: { must_not: { exists: { field: "profile_text" } } } };
    for await (const ids of scanIds(this.client, index, missing, "id", 500)) {
      const response = await this.client.mget<Pick<OrganizationDocument, "doc" | "customer_vector">>({ index, ids, _source_includes: ["doc", "customer_vector"] });
      const operations = response.docs.flatMap((d) => {
        const source = "found" in d && d.found ? d._source : undefined;
        // A document that holds no organization (written by hand) gets no words, and stays as it is.
        if (!source?.doc || typeof source.doc.name !== "string") return [];
        return [{ update: { _index: index, _id: d._id } }, { doc: wordFieldsOf(source.doc, !!source.customer_vector) }];
      });
      if (operations.length === 0) continue;
      const written = await this.client.bulk({ operations, refresh: false });
      const failed = written.items.find((item) => item.update?.error);
      if (failed) throw new OrgsimError("INTERNAL", `Adding the word fields to ${index} failed at organization ${failed.update?._id}: ${failed.update?.error?.reason}`);
    }
    await this.client.indices.refresh({ index });
    const { meta } = this.validate(await this.readIndex());
    await this.client.indices.putMapping({ index, _meta: { ...meta, orgsim_schema: ORGSIM_SCHEMA } as unknown as estypes.Metadata });
    this.info = null;
  }
}

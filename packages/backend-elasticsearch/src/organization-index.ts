/**
 * Administration of the organizations index: what it is (dims, vector type, model and schema, read
 * from its mapping), making it, admitting a model (made again while empty when the dimension
 * changes), and the migration of older indexes to the current schema (schema 2 added the word
 * fields, schema 3 the lookup keys, schema 4 `customer_stated`).
 *
 * `init`, `vectorModel` and `describe` are store calls and map their errors (`guarded`); the other
 * methods run inside the `guarded` of the document or search call that needs them.
 */
import type { Client, estypes } from "@elastic/elasticsearch";
import { assertModelAdmitted, OrgsimError, type VectorModel } from "@orgsim/core";
import type { IndexName, ResolvedConfig, VectorIndexType } from "./config";
import { ensureIndex, scanIds, unlessNotFound } from "./elastic";
import { guarded } from "./errors";
import {
  derivedFieldsOf,
  type IndexMeta,
  LOOKUP_FIELDS,
  ORGSIM_SCHEMA,
  type OrganizationDocument,
  organizationMappings,
  STATED_FIELD,
  WORD_FIELD,
  WORD_SETTINGS,
} from "./organization-document";

/** How long the index description and the vector model are trusted before being read again. */
const CACHE_MS = 5_000;

/** What the store knows about its index. */
export interface IndexInfo {
  /** The concrete index behind the alias. */
  index: string;
  dimension: number;
  type: VectorIndexType;
  meta: Partial<IndexMeta>;
  /** The index has every field of the current schema; older indexes are upgraded on first use. */
  current: boolean;
}

export class OrganizationIndex {
  private info: { value: IndexInfo; at: number } | null = null;
  private model: { value: VectorModel | null; at: number } | null = null;
  private upgrading: Promise<void> | null = null;

  constructor(
    private readonly client: Client,
    private readonly config: ResolvedConfig,
    private readonly name: IndexName,
  ) {}

  /** Creates the index now when the model's dimension is known (else the first upsert does). */
  async init(): Promise<void> {
    if (this.config.dimension === undefined) return;
    const dimension = this.config.dimension;
    await guarded(this.config.url, async () => {
      await ensureIndex(this.client, this.name, () => this.indexSpec(dimension, null));
      await this.upgradeSchema(this.validate(await this.read()));
    });
  }

  async vectorModel(): Promise<VectorModel | null> {
    if (this.model && Date.now() - this.model.at < CACHE_MS) return this.model.value;
    return guarded(this.config.url, async () => {
      const info = await this.read();
      let value: VectorModel | null = null;
      // No documents, no vectors: any model may be written next.
      if (info?.meta.model_id && (await this.countDocuments()) > 0) value = { modelId: info.meta.model_id, dimension: info.dimension };
      this.model = { value, at: Date.now() };
      return value;
    });
  }

  /** Writes and deletes may change the model the store holds (none when empty): read it again next time. */
  forgetModel(): void {
    this.model = null;
  }

  /** The index description (dims and type from the mapping, the model from `_meta`), or null when there is no index. */
  async describe(): Promise<IndexInfo | null> {
    return guarded(this.config.url, () => this.read());
  }

  async cached(): Promise<IndexInfo | null> {
    if (this.info && Date.now() - this.info.at < CACHE_MS) return this.info.value;
    return this.read();
  }

  async read(): Promise<IndexInfo | null> {
    const response = await unlessNotFound(this.client.indices.getMapping({ index: this.name.alias }), null);
    if (!response) {
      this.info = null;
      return null;
    }
    const value = this.infoOf(response);
    this.info = { value, at: Date.now() };
    return value;
  }

  /** A store call: every write so far becomes visible to searches (no index yet: nothing to do). */
  async refresh(): Promise<void> {
    await guarded(this.config.url, () => unlessNotFound(this.client.indices.refresh({ index: this.name.alias }), null));
  }

  async countDocuments(): Promise<number> {
    return (await unlessNotFound(this.client.count({ index: this.name.alias }), null))?.count ?? 0;
  }

  /**
   * Makes sure the index exists and takes vectors of `model`: refuses another model or dimension
   * while documents exist; an empty index takes any model (re-created when the dimension changes).
   */
  async prepareFor(model: VectorModel): Promise<void> {
    await this.admitModel(model);
    // The mapping is strict: documents carry the derived fields, so an older index must have them first.
    await this.upgradeSchema(this.validate(await this.read()));
  }

  /**
   * Brings an index of an older schema up to the current one, keeping every document: the word
   * analyzer is added while the index is briefly closed (analysis settings are static), then the
   * new fields, then each document gets them computed from its stored organization.
   */
  async upgradeSchema(info: IndexInfo): Promise<void> {
    if (info.current) return;
    // Concurrent first searches share one upgrade.
    this.upgrading ??= this.addDerivedFields(info.index).finally(() => {
      this.upgrading = null;
    });
    await this.upgrading;
  }

  private infoOf(response: estypes.IndicesGetMappingResponse): IndexInfo {
    const entries = Object.entries(response);
    if (entries.length !== 1) {
      throw new OrgsimError(
        "INTERNAL",
        `${this.name.alias} resolves to ${entries.length} indices (${entries.map(([n]) => n).join(", ")}); it must name exactly one`,
      );
    }
    const [index, { mappings }] = entries[0] as [string, estypes.IndicesGetMappingIndexMappingRecord];
    const profile = mappings.properties?.profile_vector as estypes.MappingDenseVectorProperty | undefined;
    const customer = mappings.properties?.customer_vector as estypes.MappingDenseVectorProperty | undefined;
    if (
      profile?.type !== "dense_vector" ||
      customer?.type !== "dense_vector" ||
      !profile.dims ||
      profile.dims !== customer.dims ||
      profile.similarity !== "cosine"
    ) {
      throw new OrgsimError(
        "INTERNAL",
        `Index ${index} (alias ${this.name.alias}) was not made by orgsim: it needs profile_vector and customer_vector as dense_vector fields of equal dims with cosine similarity`,
      );
    }
    return {
      index,
      dimension: profile.dims,
      type: (profile.index_options?.type ?? "int8_hnsw") as VectorIndexType,
      meta: (mappings._meta ?? {}) as Partial<IndexMeta>,
      // The schema is written last by the upgrade, so an upgrade cut short is taken up again.
      current: ((mappings._meta as Partial<IndexMeta> | undefined)?.orgsim_schema ?? 1) >= ORGSIM_SCHEMA,
    };
  }

  private validate(info: IndexInfo | null): IndexInfo {
    if (!info) throw new OrgsimError("INTERNAL", `Index ${this.name.alias} is missing`);
    return info;
  }

  private indexSpec(dimension: number, model: VectorModel | null) {
    return {
      settings: { number_of_shards: this.config.shards, number_of_replicas: this.config.replicas, ...WORD_SETTINGS },
      mappings: organizationMappings(dimension, this.config.quantization, model, this.config.hnsw),
    };
  }

  private async admitModel(model: VectorModel): Promise<void> {
    await ensureIndex(this.client, this.name, () => this.indexSpec(model.dimension, model));
    let info = this.validate(await this.read());
    const sameModel = info.meta.model_id === model.modelId;
    if (info.dimension === model.dimension && sameModel) return;

    const documents = await this.countDocuments();
    if (documents > 0) {
      // Another model is the core's rule; the same model at another dimension is this index's mapping.
      if (info.meta.model_id && !sameModel) assertModelAdmitted({ modelId: info.meta.model_id, dimension: info.dimension }, model);
      if (info.dimension !== model.dimension) {
        throw new OrgsimError(
          "CONFLICT",
          `Index ${info.index} maps its vector fields with ${info.dimension} dimensions and holds ${documents} organizations; model ${model.modelId} is ${model.dimension}-d. ` +
            "Use a model of that dimension, or another index prefix",
          { index: info.index, index_dimension: info.dimension, model: model.modelId, dimension: model.dimension },
        );
      }
    }
    if (info.dimension !== model.dimension) info = await this.remake(info, model);
    if (info.meta.model_id !== model.modelId) {
      // The schema stays what it is: upgradeSchema moves it.
      const meta: IndexMeta = { orgsim_schema: info.meta.orgsim_schema ?? 1, model_id: model.modelId, dimension: model.dimension };
      await this.client.indices.putMapping({ index: this.name.alias, _meta: meta as unknown as estypes.Metadata });
      this.info = null;
    }
    this.model = null;
  }

  /** Makes the (empty) index again with `model`'s dimension: nothing is lost. */
  private async remake(info: IndexInfo, model: VectorModel): Promise<IndexInfo> {
    await this.client.indices.delete({ index: info.index });
    this.info = null;
    await ensureIndex(this.client, { alias: this.name.alias, index: info.index }, () => this.indexSpec(model.dimension, model));
    const remade = this.validate(await this.read());
    if (remade.dimension !== model.dimension) {
      throw new OrgsimError(
        "CONFLICT",
        `Index ${remade.index} was re-created by someone else with ${remade.dimension}-d vectors meanwhile; model ${model.modelId} is ${model.dimension}-d`,
      );
    }
    return remade;
  }

  private async addDerivedFields(index: string): Promise<void> {
    await this.addWordAnalysis(index);
    await this.client.indices.putMapping({ index, properties: { profile_text: WORD_FIELD, customer_text: WORD_FIELD, ...LOOKUP_FIELDS, ...STATED_FIELD } });
    // customer_stated is the newest field every document has: without it, a document misses some.
    const missing = { bool: { must_not: { exists: { field: "customer_stated" } } } };
    for await (const ids of scanIds(this.client, index, missing, "id", 500)) await this.writeDerivedFields(index, ids);
    await this.client.indices.refresh({ index });
    const { meta } = this.validate(await this.read());
    await this.client.indices.putMapping({ index, _meta: { ...meta, orgsim_schema: ORGSIM_SCHEMA } as unknown as estypes.Metadata });
    this.info = null;
  }

  /** The word analyzer and similarity, unless there: analysis settings change only while the index is closed. */
  private async addWordAnalysis(index: string): Promise<void> {
    const settings = (await this.client.indices.getSettings({ index, name: "index.analysis.analyzer.orgsim_text*" }))[index]?.settings;
    if (settings?.index?.analysis) return;
    await this.client.indices.close({ index, wait_for_active_shards: 0 });
    try {
      await this.client.indices.putSettings({ index, settings: WORD_SETTINGS });
    } finally {
      await this.client.indices.open({ index, wait_for_active_shards: 1 });
    }
    await this.client.cluster.health({ index, wait_for_status: "yellow", timeout: "60s" });
  }

  /** The derived fields of the documents `ids`, computed from their stored organizations. */
  private async writeDerivedFields(index: string, ids: string[]): Promise<void> {
    const response = await this.client.mget<Pick<OrganizationDocument, "doc" | "customer_vector">>({
      index,
      ids,
      _source_includes: ["doc", "customer_vector"],
    });
    const operations = response.docs.flatMap((d) => {
      const source = "found" in d && d.found ? d._source : undefined;
      // A document that holds no organization (written by hand) gets no derived fields, and stays as it is.
      if (!source?.doc || typeof source.doc.name !== "string") return [];
      return [{ update: { _index: index, _id: d._id } }, { doc: derivedFieldsOf(source.doc, !!source.customer_vector) }];
    });
    if (operations.length === 0) return;
    const written = await this.client.bulk({ operations, refresh: false });
    const failed = written.items.find((item) => item.update?.error);
    if (failed)
      throw new OrgsimError("INTERNAL", `Adding the derived fields to ${index} failed at organization ${failed.update?._id}: ${failed.update?.error?.reason}`);
  }
}

/**
 * Document I/O of the organizations index: batches written all or nothing, reads by id, deletes.
 * Each call maps its errors (`guarded`).
 */
import type { Client, estypes } from "@elastic/elasticsearch";
import { assertRecordVectors, type Organization, type OrganizationRecord, OrgsimError, type VectorKind, type VectorModel } from "@orgsim/core";
import type { IndexName, ResolvedConfig } from "./config";
import { unlessNotFound } from "./elastic";
import { guarded, UNAVAILABLE_STATUSES } from "./errors";
import { type OrganizationDocument, toDocument, VECTOR_FIELD } from "./organization-document";
import type { OrganizationIndex } from "./organization-index";
import { squaredNorm } from "./vector-math";

/** A document of a batch that Elasticsearch refused. */
interface Refused {
  id: number | undefined;
  error: estypes.ErrorCause;
  status: number;
}

export class OrganizationDocuments {
  constructor(
    private readonly client: Client,
    private readonly config: ResolvedConfig,
    private readonly name: IndexName,
    private readonly index: OrganizationIndex,
  ) {}

  async upsert(records: OrganizationRecord[], model: VectorModel): Promise<void> {
    if (records.length === 0) return;
    assertRecordVectors(records, model, (id, v) => {
      // Elasticsearch refuses zero vectors for cosine; say so before writing anything.
      if (squaredNorm(v) === 0) throw new OrgsimError("VALIDATION_FAILED", `Organization ${id} has a zero vector, which has no cosine similarity`);
    });
    await guarded(this.config.url, async () => {
      await this.index.prepareFor(model);
      const ids = records.map((r) => String(r.organization.id));
      // All or nothing: what the batch replaces is read first, to be put back should any write fail.
      const previous = await this.documents(ids);
      const sent = await Promise.allSettled(partsById(records).map((part) => this.bulkIndex(part)));
      this.index.forgetModel();
      const results = sent.flatMap((s) => (s.status === "fulfilled" ? s.value : []));
      const written = results.flatMap(({ item }) => (item && !item.error ? [item] : []));
      const unsent = sent.find((s) => s.status === "rejected");
      if (unsent) {
        await this.putBack(written, previous);
        throw unsent.reason;
      }
      const failed = results.flatMap(({ id, item }) => (item?.error ? [{ id, error: item.error, status: item.status }] : []));
      if (failed.length === 0) return;
      await this.putBack(written, previous);
      throw refusedBatchError(failed, records.length);
    });
  }

  /** One bulk request indexing `records`: each record's id with its result. */
  private async bulkIndex(records: OrganizationRecord[]): Promise<{ id: number; item: estypes.BulkResponseItem | undefined }[]> {
    const operations = records.flatMap((r) => [{ index: { _index: this.name.alias, _id: String(r.organization.id) } }, toDocument(r)]);
    const response = await this.client.bulk({ operations, refresh: this.config.refresh });
    return records.map((r, i) => ({ id: r.organization.id, item: response.items[i]?.index }));
  }

  async get(id: number): Promise<Organization | null> {
    return guarded(this.config.url, async () => {
      const request = this.client.get<Pick<OrganizationDocument, "doc">>({ index: this.name.alias, id: String(id), _source_includes: ["doc"] });
      return (await unlessNotFound(request, null))?._source?.doc ?? null;
    });
  }

  /** The organizations that exist among `ids`, in the order asked (duplicates once). */
  async getMany(ids: number[]): Promise<Organization[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    return guarded(this.config.url, async () => {
      const request = this.client.mget<Pick<OrganizationDocument, "doc">>({ index: this.name.alias, ids: unique.map(String), _source_includes: ["doc"] });
      const response = await unlessNotFound(request, null);
      return response?.docs.flatMap((d) => ("found" in d && d.found && d._source ? [d._source.doc] : [])) ?? [];
    });
  }

  async getVector(id: number, kind: VectorKind): Promise<Float32Array | null> {
    const field = VECTOR_FIELD[kind];
    return guarded(this.config.url, async () => {
      const request = this.client.get<Partial<OrganizationDocument>>({ index: this.name.alias, id: String(id), _source_includes: [field] });
      const vector = (await unlessNotFound(request, null))?._source?.[field];
      return vector ? Float32Array.from(vector) : null;
    });
  }

  async delete(id: number): Promise<boolean> {
    return guarded(this.config.url, async () => {
      const response = await unlessNotFound(this.client.delete({ index: this.name.alias, id: String(id), refresh: this.config.refresh }), null);
      if (!response) return false;
      this.index.forgetModel();
      return response.result === "deleted";
    });
  }

  async count(): Promise<number> {
    return guarded(this.config.url, () => this.index.countDocuments());
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
}

/**
 * A batch goes out as up to this many bulk requests at once. Elasticsearch indexes a bulk request
 * to one shard on one write thread, building the vectors' HNSW graphs as it goes: one request at a
 * time leaves the node's other cores idle.
 */
const PARALLEL_BULKS = 4;
/** Records per bulk request at least: smaller requests cost more in overhead than they gain. */
const MIN_BULK = 100;

/** `records` split into the parts sent at once, by id: the writes of one id stay in one request, in their order. */
function partsById(records: OrganizationRecord[]): OrganizationRecord[][] {
  const count = Math.max(1, Math.min(PARALLEL_BULKS, Math.floor(records.length / MIN_BULK)));
  const parts: OrganizationRecord[][] = Array.from({ length: count }, () => []);
  for (const r of records) (parts[Math.abs(r.organization.id) % count] as OrganizationRecord[]).push(r);
  return parts.filter((part) => part.length > 0);
}

/** The error for a batch Elasticsearch refused in part (and that was undone). */
function refusedBatchError(failed: Refused[], total: number): OrgsimError {
  const first = failed[0];
  if (failed.every((f) => UNAVAILABLE_STATUSES.has(f.status))) {
    // Shed load (a full write queue, a shard not ready): the whole batch may be sent again.
    return new OrgsimError(
      "BACKEND_UNAVAILABLE",
      `Elasticsearch is overloaded and refused ${failed.length} of ${total} organizations (HTTP ${first?.status}); nothing was written; retry shortly`,
      {
        backend: "elasticsearch",
        reason: "overloaded",
        failed_ids: failed.map((f) => f.id),
      },
    );
  }
  // The reasons are Elasticsearch's internals: for the log, not the caller.
  console.error(
    `orgsim: Elasticsearch refused organizations ${failed.map((f) => `${f.id} (${f.error.type}: ${f.error.reason})`).join(", ")}; the batch was undone`,
  );
  return new OrgsimError("INTERNAL", `Elasticsearch refused ${failed.length} of ${total} organizations (first: ${first?.id}); nothing was written`, {
    failed_ids: failed.map((f) => f.id),
  });
}

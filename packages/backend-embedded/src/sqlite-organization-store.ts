/**
 * OrganizationStore on SQLite (durable truth) + MemoryIndex (what searches scan).
 * SQLite holds documents, filter columns, vectors and the vector model; the
 * index is loaded once at open and kept in step with this store's own writes.
 * Writes committed by another connection (another server process, the importer
 * CLI while a server runs) are noticed through PRAGMA data_version and a
 * generation counter, and the organizations they changed are read again from the
 * change log before the next read (everything is reloaded when the log no longer
 * reaches back far enough).
 */
import { setImmediate as nextTick } from "node:timers/promises";
import {
  assertModelAdmitted,
  assertQueryDimension,
  assertRecordVectors,
  type CustomerBaseFigures,
  hasExplicitCustomerText,
  type LookupQuery,
  type LookupTiers,
  lexicalTextsOf,
  type Organization,
  type OrganizationRecord,
  type OrganizationStore,
  type ScoredId,
  type ScoredOrganization,
  type TermStatistics,
  type TextTermStatistics,
  type TextQuery,
  type VectorKind,
  type VectorModel,
  type VectorQuery,
} from "@orgsim/core";
import type { Db } from "./database";
import { guarded } from "./errors";
import { filterColumnsOf, type LexicalTexts, MemoryIndex } from "./memory-index";
import { loadMemorySnapshot, saveMemorySnapshot } from "./memory-snapshot";
import { VIEW_OPTIONS } from "./graph-shard";
import { GraphSearchThread } from "./graph-search-thread";
import { type GraphPrefetch, SHARD_NODES } from "./vector-graph";
import { GENERATION, OrganizationChanges } from "./organization-changes";
import { deletePlan, generationOf, type OrganizationRow, STORED_MODEL_SQL, type StoredModelRow, upsertPlan } from "./organization-writes";
import { SqliteOrganizationLookup } from "./sqlite-organization-lookup";
import { fromBlob, STORED_ENTRIES_SQL, STORED_VECTOR_SQL, type StoredEntryRow, storedEntry } from "./stored-entries";
import { type GraphProgress, SYNC_LIMIT, VectorGraphs } from "./vector-graphs";
import { WalCheckpointer } from "./wal-checkpointer";
import { isStaleWrite, type WritePlan } from "./write-steps";
import { WriteThread } from "./write-thread";

export interface VectorIndexOptions {
  /** "hnsw" (default): large rankings take candidates from HNSW graphs; "exact": every ranking scans. */
  kind?: "hnsw" | "exact";
  /** Where the graphs are saved (the SQLite file's folder); null keeps them in memory only. */
  dir?: string | null;
  /** Rankings over at most this many rows scan them exactly (candidate-plan.ts). */
  exactBelow?: number;
  /** Nodes per graph shard (vector-graph.ts; default SHARD_NODES): tests make it small to have many. */
  shardNodes?: number;
  /**
   * Where a hybrid ranking's graph search runs (graph-search-thread.ts): on a thread of its own
   * while the machine has a core to spare (true, the default), or always ("always", for tests);
   * false: on the caller's thread.
   */
  searchThread?: boolean | "always";
  /**
   * An import (`orgsim import`): no write adds to the graphs at once, however small, so the records
   * are written at full speed and the graphs built in one pass after them. Else a write of up to
   * SYNC_LIMIT organizations adds them before it returns, and an import of batches of 64 (the
   * importer's default when the model embeds) wrote at the graphs' speed: 100k rows with their vectors
   * given took 379 s, against 35 s without (docs/benchmarks.md).
   */
  bulkImport?: boolean;
  /** Reports a (re)build of the graphs: why it started, then its progress. */
  onProgress?: (progress: GraphProgress & { reason?: string }) => void;
  /**
   * Reports a failure of work in the background, each with a message saying what failed and what
   * follows (the store stays correct): saving the graphs or the memory snapshot (the next start
   * rebuilds them), the WAL checkpoint thread, a background pass over a bulk write's words.
   */
  onError?: (error: Error) => void;
}

/** Whether the vector index holds every stored vector, and how far a build is. */
export interface VectorIndexStatus extends GraphProgress {
  current: boolean;
  /** Every organization is being added again (at open, when the saved graphs did not match): the server is not ready meanwhile. */
  rebuilding: boolean;
}

/**
 * A write of more organizations than this is a bulk write (an import's batch: 64 by default, 1,000
 * at most): its words are indexed in one pass after it (MemoryIndex.indexTexts), and its checkpoint
 * runs on another thread (wal-checkpointer.ts). In an import, finding each text's customer
 * sentences and words cost more than writing the records. A write of a few (the API's) does both at once.
 */
export const BULK_WRITE = 16;
/** Organizations whose words a background pass indexes per tick. */
const TEXTS_CHUNK = 2_000;
/** A background pass over pending texts starts once writes have paused this long (as the graphs' build does). */
const TEXTS_QUIET_MS = 1_000;
/** How long after the graphs catch up with writes they are saved (at the latest; at close at once). */
const SAVE_DELAY_MS = 30_000;
/** Organizations read back at a time when catching up with another connection's writes. */
const CATCH_UP_BATCH = 5_000;
/** Times an upsert is made again when another connection stored another vector model meanwhile (its guard found the store changed). */
const STALE_ATTEMPTS = 3;

export class SqliteOrganizationStore implements OrganizationStore {
  readonly backend = "embedded" as const;
  private index: MemoryIndex | null = null;
  /** The generation the index reflects, and the data_version last seen. */
  private generation = 0;
  private dataVersion = -1;
  private closed = false;
  /** Writes asked for whose index update has not run yet: close() waits for them (they run on the write thread). */
  private readonly writing = new Set<Promise<unknown>>();
  private closing = false;
  private readonly sql;
  private readonly changes: OrganizationChanges;
  private readonly lookup: SqliteOrganizationLookup;
  private readonly checkpointer: WalCheckpointer;
  private readonly writes: WriteThread;
  private graphs: VectorGraphs | null = null;
  private graphThread: GraphSearchThread | null = null;
  private saveTimer: NodeJS.Timeout | null = null;
  private textsTimer: NodeJS.Timeout | null = null;
  private textsPass: Promise<void> | null = null;
  /** The generation of the memory snapshot on disk, when this store read or wrote it. */
  private snapshotGeneration = -1;

  constructor(
    private readonly db: Db,
    private readonly onClose: () => void = () => db.close(),
    private readonly vectorIndex: VectorIndexOptions = {},
  ) {
    this.sql = {
      meta: db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?"),
      storedModel: db.prepare<[], StoredModelRow>(STORED_MODEL_SQL),
      doc: db.prepare<[number], string>("SELECT doc FROM organizations WHERE id = ?").pluck(),
      docs: db.prepare<[string], { id: number; doc: string }>("SELECT id, doc FROM organizations WHERE id IN (SELECT value FROM json_each(?))"),
      vector: db.prepare<[number, string], Buffer>(STORED_VECTOR_SQL).pluck(),
      count: db.prepare<[], number>("SELECT count(*) FROM organizations").pluck(),
      // A prepared pragma: read before every search, so it skips db.pragma()'s per-call preparation.
      dataVersion: db.prepare<[], number>("PRAGMA data_version").pluck(),
    };
    this.changes = new OrganizationChanges(db);
    this.checkpointer = new WalCheckpointer(db, (error) =>
      this.reportBackground("the WAL checkpoint thread failed (SQLite checkpoints at commits instead)", error),
    );
    this.writes = new WriteThread(db, (error) => this.reportBackground("the write thread failed (writes run on the server's thread instead)", error));
    this.lookup = new SqliteOrganizationLookup(db);
    this.load();
  }

  async vectorModel(): Promise<VectorModel | null> {
    return guarded(() => this.storedModel());
  }

  async upsert(records: OrganizationRecord[], model: VectorModel): Promise<void> {
    return this.tracked(async () => {
      if (records.length === 0) return;
      assertRecordVectors(records, model);
      const rows: OrganizationRow[] = records.map((r) => ({ ...r, columns: filterColumnsOf(r.organization) }));
      // A bulk write leaves its checkpoint to another thread (wal-checkpointer.ts), and its words to one pass after it.
      const bulk = rows.length > BULK_WRITE;
      const before = generationOf(await this.writeUpsert(rows, model, bulk)) - 1;
      if (!this.inStep(before)) return;
      if (!this.index || this.index.dimension !== model.dimension) this.index = this.withGraphs(new MemoryIndex(model.dimension), model);
      // The words of a bulk write are read back from SQLite by that pass; a search by words runs it first if it has not run.
      this.index.putMany(
        rows.map(({ organization, columns, profileVector, customerVector }) => ({
          id: organization.id,
          columns,
          profile: profileVector,
          customer: customerVector,
          texts: bulk ? null : lexicalTextsOf(organization),
          customerStated: hasExplicitCustomerText(organization),
        })),
      );
      if (bulk) this.indexTextsSoon();
    });
  }

  async get(id: number): Promise<Organization | null> {
    return guarded(async () => {
      const doc = this.sql.doc.get(id);
      return doc === undefined ? null : (JSON.parse(doc) as Organization);
    });
  }

  /** The organizations that exist among `ids`, in the order asked. */
  async getMany(ids: number[]): Promise<Organization[]> {
    return guarded(async () => {
      if (ids.length === 0) return [];
      const byId = new Map(this.sql.docs.all(JSON.stringify(ids)).map((r) => [r.id, r.doc]));
      return [...new Set(ids)].flatMap((id) => {
        const doc = byId.get(id);
        return doc === undefined ? [] : [JSON.parse(doc) as Organization];
      });
    });
  }

  async lookUp(query: LookupQuery): Promise<LookupTiers> {
    return guarded(async () => this.lookup.lookUp(query));
  }

  async getVector(id: number, kind: VectorKind): Promise<Float32Array | null> {
    return guarded(async () => {
      // The memory index holds every current vector: a search's seed is read there, not from SQLite
      // (about 2 % of a similar-to-organization request's CPU at 100k). Copied: its view moves with writes.
      this.catchUp();
      if (this.index) {
        const vector = this.index.vectorOf(id, kind);
        return vector ? Float32Array.from(vector) : null;
      }
      const blob = this.sql.vector.get(id, kind);
      return blob === undefined ? null : fromBlob(blob);
    });
  }

  async delete(id: number): Promise<boolean> {
    return this.tracked(async () => {
      let results: unknown[];
      try {
        results = await this.write(deletePlan(id), false);
      } catch (error) {
        // Its guard found no such organization: nothing was written.
        if (isStaleWrite(error)) return false;
        throw error;
      }
      if (this.inStep(generationOf(results) - 1)) this.index?.remove(id);
      return true;
    });
  }

  async count(): Promise<number> {
    return guarded(() => this.sql.count.get() as number);
  }

  async search(query: VectorQuery): Promise<ScoredOrganization[]> {
    return guarded(async () => {
      const hits = await this.rank(query);
      const organizations = new Map((await this.getMany(hits.map((h) => h.id))).map((o) => [o.id, o]));
      return hits.flatMap(({ id, score }) => {
        const organization = organizations.get(id);
        return organization ? [{ organization, score }] : [];
      });
    });
  }

  async rank(query: VectorQuery): Promise<ScoredId[]> {
    return guarded(async () => {
      const excludedIds = new Set(query.filter.excludeIds);
      const prefetched = query.concurrent ? await this.prefetchGraphSearch(query, excludedIds) : undefined;
      // Caught up again: writes may have come meanwhile (the prefetched search still answers for the views it searched).
      this.catchUp();
      const index = this.index;
      if (!index || index.size === 0) return [];
      assertQueryDimension(query.vector.length, index.dimension);
      // Filter first, then rank only the candidates: a filtered query fills its page whenever enough organizations match.
      return index.rank(query.vector, query.kind, index.filterRows(query.filter), { ...query, excludedIds, prefetched });
    });
  }

  /** The ranking's first graph search, made on the graph search thread while this one goes on (graph-search-thread.ts). */
  private async prefetchGraphSearch(query: VectorQuery, excludedIds: ReadonlySet<number>): Promise<GraphPrefetch | undefined> {
    // Under load (no core to spare) the thread takes no search: none is planned for it.
    if (!this.graphThread?.takesSearches() || query.size <= 0) return undefined;
    this.catchUp();
    const index = this.index;
    if (!index || query.vector.length !== index.dimension) return undefined;
    return index.prefetchGraphSearch(query.vector, query.kind, index.filterRows(query.filter), { ...query, excludedIds }, this.graphThread);
  }

  async searchText(query: TextQuery): Promise<number[]> {
    return guarded(async () => {
      this.catchUp();
      const index = this.index;
      if (!index || index.size === 0 || query.size <= 0) return [];
      const excluded = new Set(query.filter.excludeIds);
      return index.searchText(query.text, query.kind, index.filterRows(query.filter), excluded, query.size).map((hit) => hit.id);
    });
  }

  async termStatistics(terms: readonly string[], kind: VectorKind): Promise<TermStatistics> {
    return guarded(async () => {
      this.catchUp();
      return this.index?.termStatistics(terms, kind) ?? { documents: 0, docFrequency: new Map() };
    });
  }

  async organizationTermStatistics(id: number, kind: VectorKind): Promise<TextTermStatistics | null> {
    return guarded(async () => {
      this.catchUp();
      const index = this.index;
      const texts = index ? this.textsOf([id]).get(id) : undefined;
      return index && texts ? index.organizationTermStatistics(id, texts, kind) : null;
    });
  }

  async similarities(vector: Float32Array, kind: VectorKind, ids: number[]): Promise<Map<number, number>> {
    return guarded(async () => {
      this.catchUp();
      const index = this.index;
      if (!index) return new Map();
      assertQueryDimension(vector.length, index.dimension);
      return index.similarities(vector, kind, ids);
    });
  }

  async customerBaseFigures(vector: Float32Array, ids: number[]): Promise<Map<number, CustomerBaseFigures>> {
    return guarded(async () => {
      this.catchUp();
      const index = this.index;
      if (!index) return new Map();
      assertQueryDimension(vector.length, index.dimension);
      return index.customerBaseFigures(vector, ids);
    });
  }

  async ping(): Promise<boolean> {
    try {
      return !this.closed && this.db.prepare("SELECT 1").pluck().get() === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    return guarded(async () => {
      if (this.closing) return;
      this.closing = true;
      // Writes in flight end first, their index updates too: the graphs and the snapshot saved below then hold them.
      while (this.writing.size > 0) await Promise.allSettled([...this.writing]);
      this.closed = true;
      // A graph left pending would be rebuilt at the next start: finish and save it now.
      if (this.saveTimer) clearTimeout(this.saveTimer);
      this.cancelTextsTimer();
      this.graphs?.finish();
      this.saveGraphs();
      this.saveSnapshot();
      this.graphs?.stop();
      this.index = null;
      await this.graphThread?.close();
      await this.writes.close();
      await this.checkpointer.close();
      this.onClose();
    });
  }

  /** Whether the vector index is current, or rebuilding (the server is not ready while it rebuilds). */
  vectorIndexStatus(): VectorIndexStatus {
    const graphs = this.graphs;
    return graphs ? { current: graphs.current, rebuilding: graphs.isRebuilding, ...graphs.progress } : { current: true, rebuilding: false, done: 0, total: 0 };
  }

  /** Resolves when the vector index holds every stored vector (an import waits for it before it reports done). */
  async vectorIndexSettled(): Promise<void> {
    await this.graphs?.settled();
    // Started now rather than by the first search that could use it, which would then search here.
    if (this.graphs?.hasViews) await this.graphThread?.ready();
  }

  /** How many organizations' words are not indexed yet (a bulk write's, until the pass after it). */
  wordIndexPending(): number {
    return this.index?.pendingTexts ?? 0;
  }

  /** Resolves once the word index holds every stored organization's words (indexing them now, a chunk per tick). */
  async wordIndexSettled(): Promise<void> {
    return guarded(async () => {
      this.cancelTextsTimer();
      this.textsPass ??= this.indexTextsPass();
      await this.textsPass;
    });
  }

  /** Starts a pass over the pending texts once writes have paused TEXTS_QUIET_MS (as the graphs' build waits for a pause). */
  private indexTextsSoon(): void {
    if (this.textsPass) return;
    this.cancelTextsTimer();
    this.textsTimer = setTimeout(() => {
      this.textsTimer = null;
      this.textsPass ??= this.indexTextsPass();
      // A failed background pass leaves the texts pending: the next search by words indexes them, and reports what fails.
      this.textsPass.catch((error) => this.reportBackground("indexing the words of a bulk write failed (the next search by words indexes them)", error));
    }, TEXTS_QUIET_MS);
    this.textsTimer.unref();
  }

  private async indexTextsPass(): Promise<void> {
    try {
      while (!this.closed && this.index && this.index.indexTexts(TEXTS_CHUNK) > 0) await nextTick();
    } finally {
      this.textsPass = null;
    }
  }

  private cancelTextsTimer(): void {
    if (this.textsTimer) clearTimeout(this.textsTimer);
    this.textsTimer = null;
  }

  /** The current texts of `ids`, read from SQLite: where the memory index reads a bulk write's words. */
  private textsOf(ids: readonly number[]): Map<number, LexicalTexts> {
    const texts = new Map<number, LexicalTexts>();
    for (const { id, doc } of this.sql.docs.all(JSON.stringify(ids))) texts.set(id, lexicalTextsOf(JSON.parse(doc) as Organization));
    return texts;
  }

  /** Gives `index` its graphs (unless ORGSIM_VECTOR_INDEX=exact) and where it reads the texts of bulk writes. */
  private withGraphs(index: MemoryIndex, model: VectorModel): MemoryIndex {
    index.useTextSource((ids) => this.textsOf(ids));
    this.graphs?.stop();
    this.graphs = null;
    void this.graphThread?.close();
    this.graphThread = null;
    if (this.vectorIndex.kind !== "exact") {
      this.graphs = new VectorGraphs(
        model.dimension,
        this.vectorIndex.shardNodes ?? SHARD_NODES,
        { vectorOf: (id, kind) => index.vectorOf(id, kind), allIds: () => index.allIds() },
        (progress) => this.vectorIndex.onProgress?.(progress),
        (rebuilt) => (rebuilt ? this.saveGraphs() : this.saveGraphsSoon()),
        this.vectorIndex.bulkImport ? 0 : SYNC_LIMIT,
      );
      index.useGraphs(this.graphs, this.vectorIndex.exactBelow);
      if (this.vectorIndex.searchThread !== false) {
        const whenCoreSpare = this.vectorIndex.searchThread !== "always";
        this.graphThread = new GraphSearchThread(model.dimension, VIEW_OPTIONS, whenCoreSpare, (error) =>
          this.reportBackground("the graph search thread failed (graphs are searched on the server's thread instead)", error),
        );
      }
    }
    return index;
  }

  /** Loads the saved graphs when they reflect this very data, or starts rebuilding them. */
  private openGraphs(index: MemoryIndex, model: VectorModel): void {
    const graphs = this.graphs;
    if (!graphs) return;
    const dir = this.vectorIndex.dir;
    let reason = "the vector index is kept in memory only";
    if (dir) {
      try {
        reason = graphs.load(dir, { ...model, generation: this.generation }, index.vectorCounts()) ?? "";
      } catch (error) {
        reason = `the saved vector index could not be read (${(error as Error).message})`;
      }
    }
    if (!reason) return;
    this.vectorIndex.onProgress?.({ reason, done: 0, total: index.size });
    graphs.rebuild(index.allIds());
  }

  /**
   * Saves the graphs within SAVE_DELAY_MS, once for any number of builds meanwhile: a save blocks
   * for about a second per million vectors, and one lost to a kill only costs a rebuild at the next start.
   */
  private saveGraphsSoon(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      if (!this.closed) this.saveGraphs();
    }, SAVE_DELAY_MS);
    this.saveTimer.unref();
  }

  /** Saves current graphs beside the SQLite file, stamped with the generation they reflect; never throws. */
  private saveGraphs(): void {
    const dir = this.vectorIndex.dir;
    const model = this.index ? this.storedModelOrNull() : null;
    if (!dir || !this.graphs?.current || !this.graphs.changed || !model) return;
    try {
      // Another connection may have written since: then these graphs are not of the stored data.
      if (Number(this.sql.meta.get(GENERATION)?.value ?? 0) !== this.generation) return;
      this.graphs.save(dir, { ...model, generation: this.generation });
    } catch (error) {
      this.reportBackground("saving the vector graphs failed (the next start rebuilds them)", error);
    }
  }

  /** At close: the memory index, for a fast next start, unless the saved one is already of this generation; never throws. */
  private saveSnapshot(): void {
    const dir = this.vectorIndex.dir;
    const model = this.index ? this.storedModelOrNull() : null;
    if (!dir || !this.index || !model || this.snapshotGeneration === this.generation) return;
    try {
      if (Number(this.sql.meta.get(GENERATION)?.value ?? 0) !== this.generation) return;
      saveMemorySnapshot(dir, this.index, { ...model, generation: this.generation });
      this.snapshotGeneration = this.generation;
    } catch (error) {
      this.reportBackground("saving the memory snapshot failed (the next start reads SQLite instead)", error);
    }
  }

  private reportBackground(what: string, error: unknown): void {
    this.vectorIndex.onError?.(new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
  }

  private storedModelOrNull(): VectorModel | null {
    try {
      return this.storedModel();
    } catch {
      return null;
    }
  }

  private storedModel(): VectorModel | null {
    return modelOf(this.sql.storedModel.get());
  }

  /** A write, guarded, that close() waits for; refused as a write to a closed store once close() started. */
  private tracked<T>(write: () => Promise<T>): Promise<T> {
    const done = guarded(() => {
      // As better-sqlite3 says it of a closed connection: errors.ts answers it as the store being closed.
      if (this.closing) throw new TypeError("The database connection is not open");
      return write();
    });
    this.writing.add(done);
    const forget = () => this.writing.delete(done);
    done.then(forget, forget);
    return done;
  }

  /**
   * Writes the rows (organization-writes.ts) once the stored model admits `model`; made again when
   * another connection stored another model between the check here and the write (the check then
   * answers why it is refused).
   */
  private async writeUpsert(rows: readonly OrganizationRow[], model: VectorModel, bulk: boolean): Promise<unknown[]> {
    for (let attempt = 1; ; attempt++) {
      const stored = this.storedModel();
      assertModelAdmitted(stored, model);
      try {
        return await this.write(upsertPlan(rows, model, stored !== null), bulk);
      } catch (error) {
        if (!isStaleWrite(error) || attempt === STALE_ATTEMPTS) throw error;
      }
    }
  }

  /** Runs a write's steps where writes run (write-thread.ts); a bulk write's checkpoint on the checkpoint thread. */
  private write(plan: WritePlan, bulk: boolean): Promise<unknown[]> {
    return this.writes.run(plan, bulk ? this.checkpointer : null);
  }

  /**
   * After a commit: true when the index was current before it, so the caller applies the change
   * itself; otherwise another connection wrote meanwhile, and the index catches up from the change
   * log (this write included).
   */
  private inStep(generationBefore: number): boolean {
    if (generationBefore === this.generation) {
      this.generation = generationBefore + 1;
      return true;
    }
    this.catchUp(true);
    return false;
  }

  /** Brings the index up to the stored generation when another connection changed the organizations since we last looked. */
  private catchUp(force = false): void {
    const dataVersion = this.sql.dataVersion.get() as number;
    if (dataVersion === this.dataVersion && !force) return;
    this.dataVersion = dataVersion;
    if (Number(this.sql.meta.get(GENERATION)?.value ?? 0) === this.generation) return;
    if (!this.applyChanges()) this.load();
  }

  /** Applies what other connections changed, read in one transaction; false when only a reload can catch up. */
  private applyChanges(): boolean {
    return this.db
      .transaction(() => {
        const index = this.index;
        const stored = Number(this.sql.meta.get(GENERATION)?.value ?? 0);
        if (!index || this.storedModel()?.dimension !== index.dimension) return false;
        const ids = this.changes.changedBetween(this.generation, stored);
        if (!ids) return false;
        for (let from = 0; from < ids.length; from += CATCH_UP_BATCH) {
          const batch = ids.slice(from, from + CATCH_UP_BATCH);
          const entries = this.changes.entries(batch);
          const kept = new Set(entries.map((e) => e.id));
          for (const id of batch) if (!kept.has(id)) index.remove(id);
          index.putMany(entries);
        }
        this.generation = stored;
        return true;
      })
      .deferred();
  }

  /** Builds the index from SQLite, in one read transaction so it is a consistent snapshot. */
  private load(): void {
    this.db
      .transaction(() => {
        this.dataVersion = this.sql.dataVersion.get() as number;
        this.generation = Number(this.sql.meta.get(GENERATION)?.value ?? 0);
        const model = this.storedModel();
        this.index = null;
        this.graphs?.stop();
        this.graphs = null;
        if (!model) return;
        const dir = this.vectorIndex.dir;
        const saved = dir ? loadMemorySnapshot(dir, { ...model, generation: this.generation }) : null;
        const index = this.withGraphs(saved ?? this.readIndex(model), model);
        this.snapshotGeneration = saved ? this.generation : -1;
        this.index = index;
        this.openGraphs(index, model);
      })
      .deferred();
  }

  /** The memory index from the SQLite rows (inside load's read transaction): the slow path, every row, vector and document. */
  private readIndex(model: VectorModel): MemoryIndex {
    const index = new MemoryIndex(model.dimension, this.sql.count.get() ?? 0);
    const rows = this.db.prepare<[], StoredEntryRow>(`${STORED_ENTRIES_SQL} ORDER BY o.row`).iterate();
    for (const row of rows) index.putMany([storedEntry(row)]);
    return index;
  }
}

/** The vector model a stored-model row names (null while no vector is stored). */
function modelOf(row: StoredModelRow | undefined): VectorModel | null {
  const dimension = Number(row?.dimension);
  return row?.stored && row.modelId && dimension ? { modelId: row.modelId, dimension } : null;
}

/** The shape of apps/bench/results/perf.json. */
import type { ImportCommandResult } from "./import-command";
import type { VectorModel } from "@orgsim/core";
import type { SyntheticOptions } from "./data";
import type { EsIndexStats, EsJvm } from "./es-node";
import type { ReplayResult } from "./es-replay";
import type { FloorResult } from "./floor";
import type { LoadResult } from "./load";
import type { LoadTestResult } from "./load-test";
import type { FilterLevel, Mode, RankingName } from "./queries";
import type { RecallResult } from "./recall";
import type { BackendName } from "./server";
import type { Machine, ProcessMemory } from "./system";

export interface RunInfo {
  date: string;
  load_at_start: number[];
  load_at_end?: number[];
  shared: boolean;
  command: string;
  seconds?: number;
  git_commit?: string | null;
  /** Worker processes each orgsim server ran (ORGSIM_WORKERS); absent in runs before workers: one. */
  server_workers?: number;
  /** The Java the run's Elasticsearch node ran on; absent in runs before it was recorded (all on Java 17, without the Vector API). */
  elasticsearch_jvm?: string;
  /** The CPU the run measured on (results.machine is only the latest run's); absent in runs before it was recorded. */
  cpu?: string;
}

export interface ImportWithEmbedding {
  run: RunInfo;
  note: string;
  backends: Partial<
    Record<
      BackendName,
      {
        corpora: Record<string, { organizations: number; failed: number; importer_s: number; wall_s: number; per_second: number }>;
        organizations: number;
        importer_s: number;
        per_second: number;
      }
    >
  >;
}

export interface DataDescription {
  model: VectorModel;
  real_organizations: number;
  real_by_corpus: { yc: number; equities: number };
  real_with_customer_vector: number;
  synthetic: SyntheticOptions;
  nearest_neighbour_cosine: { within_first: number; real_among_real: number; real: number; synthetic: number | null; random_pair_mean: number };
}

export interface ScaleResult {
  organizations: number;
  real_organizations: number;
  run: RunInfo & { seconds: number };
  /** When this run left Elasticsearch out (--backends): the earlier run its Elasticsearch numbers (and rows) were carried over from. */
  elasticsearch_run?: RunInfo & { seconds: number };
  /** When this run left some of the embedded servers' loads out (--backends): those backends, and the earlier run their rows were carried over from. */
  carried_loads?: { backends: BackendName[]; run: RunInfo & { seconds: number } };
  /** Each load run warmed up with one pass over its queries before its seconds of warm-up (absent or false: some of its load runs, carried over from earlier runs, the seconds only). */
  load_warmup_pass?: boolean;
  filter_matches: Record<FilterLevel, { organizations: number; share: number }>;
  embedded: {
    /**
     * vector_index_build_s: building the HNSW graphs after the records were written (absent in runs before the graphs);
     * word_index_build_s: indexing the words after the records were written (absent in runs that indexed them with each write).
     * reused_from: with --reuse-data, the run that wrote the data directory (these figures are that run's).
     */
    import_vectors_given: LoadResult & { vector_index_build_s?: number; word_index_build_s?: number; reused_from?: RunInfo };
    /** The same organizations from an NDJSON file through `orgsim import` (absent in earlier runs, and at scales above IMPORT_COMMAND_UP_TO). */
    import_command?: ImportCommandResult;
    /** The data directory (SQLite file and its WAL). */
    disk_bytes: number;
    /** Right after the write (with its write-back still going on). */
    server_start_s: number;
    /** Stopped after the load runs and started again on the same data, with no other server running (absent in earlier runs). */
    server_restart_s?: number;
    /** With several workers (started one at a time since commit WORKERS_COMMIT; the first serves once ready): until the last was ready (absent in earlier runs). */
    server_start_all_workers_s?: number;
    server_restart_all_workers_s?: number;
    server_memory_after_start: ProcessMemory | null;
    server_memory_after_load: ProcessMemory | null;
    /** The library's own top-10 search on the saved profile graph, in the bench process (absent before the graphs). */
    raw_graph_search?: FloorResult;
  };
  elasticsearch: {
    /** reused_from: with --reuse-data, the run that wrote the kept index (these figures and merge_settle_s are that run's). */
    import_vectors_given: LoadResult & { reused_from?: RunInfo };
    /** After the last bulk: refresh, then wait until no merge runs (before any search is measured). */
    merge_settle_s: number;
    /** The index's shard request cache was off while searches were measured (absent in earlier runs, where it was on). */
    request_cache_off?: boolean;
    index: EsIndexStats;
    server_start_s: number;
    /** The orgsim server process (Node); Elasticsearch's own memory is under jvm_*. */
    server_memory_after_start: ProcessMemory | null;
    server_memory_after_load: ProcessMemory | null;
    jvm_after_start: EsJvm;
    jvm_after_load: EsJvm;
    /** Elasticsearch's own kNN _search for the same organizations, over plain HTTP in the bench process (absent in earlier runs). */
    raw_knn_search?: FloorResult;
    /** The Elasticsearch requests the server sent for each similar-to-organization search (no filter), sent again straight to the node (absent in earlier runs). */
    replayed_requests?: Partial<Record<RankingName, ReplayResult>>;
    /** After `orgsim optimize`'s force merge (one segment up to 100k organizations; scales up to --force-merge-up-to): recall, and the latency of similar-to-organization at the lowest concurrency. */
    force_merged?: {
      force_merge_s: number;
      index: EsIndexStats;
      recall: ({ mode: Mode; filter: FilterLevel } & RecallResult)[];
      load: ({ backend: BackendName; mode: Mode; filter: FilterLevel; ranking?: RankingName } & LoadTestResult)[];
    } | null;
  };
  /** Elasticsearch against the exact reference (embedded-exact). */
  recall: ({ mode: Mode; filter: FilterLevel } & RecallResult)[];
  /** The embedded backend's HNSW graphs against the exact reference (absent in runs before the graphs). */
  embedded_recall?: ({ mode: Mode; filter: FilterLevel } & RecallResult)[];
  /** `ranking` is absent in runs made before hybrid ranking existed (they were vector). */
  load: ({ backend: BackendName; mode: Mode; filter: FilterLevel; ranking?: RankingName } & LoadTestResult)[];
  /** Type-ahead lookups by name, GET /v1/organizations?name=… (absent in runs before the lookup). */
  lookup?: ({ backend: BackendName } & LoadTestResult)[];
  /** Similar to an organization, hybrid, no filter, explain=true, lowest concurrency (absent in runs before explain). */
  explain?: ({ backend: BackendName } & LoadTestResult)[];
}

export interface PerfResults {
  benchmark: string;
  machine: Machine;
  command: string;
  settings: Record<string, unknown>;
  import_with_embedding: ImportWithEmbedding | null;
  data: DataDescription | null;
  scales: Record<string, ScaleResult>;
}

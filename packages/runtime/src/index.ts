// The composition root: every entry point (HTTP server, MCP stdio, benches) builds its services here.
export {
  type App,
  type AppOptions,
  createApp,
  openKeyStore,
  optimizeBackend,
  type ReadinessChecks,
  type VectorIndexStatus,
} from "./app";
export { type BackendName, type Config, type ElasticsearchConfig, loadConfig, MAX_AUTO_WORKERS, repoRoot, userCwd } from "./config";
export type { Observers } from "./observed";
export { type VectorIndexProgress, vectorIndexReporter } from "./vector-index-progress";

// The composition root: every entry point (HTTP server, MCP stdio, benches) builds its services here.
export { type App, createApp, openKeyStore, type ReadinessChecks } from "./app";
export { type BackendName, type Config, type ElasticsearchConfig, loadConfig, repoRoot, userCwd } from "./config";

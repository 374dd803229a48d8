// The composition root, for other entry points (the MCP stdio binary) that serve the same services.
export { type App, createApp } from "./app";
export { type Config, loadConfig, repoRoot } from "./config";

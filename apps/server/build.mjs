// Bundles the orgsim command (server, import, MCP stdio share it) into dist/ for `node dist/orgsim.mjs`,
// and beside it the import's reader thread (packages/importer/src/mapped-records.ts starts it from there).
// Native and data-carrying packages stay external: they load files next to their own code (usearch
// finds its prebuilt binary from its own path, which a bundle does not have). Each is a dependency of this package, so that
// dist/orgsim.mjs resolves it from apps/server/node_modules, and from the node_modules of `pnpm deploy`.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

await build({
  entryPoints: { orgsim: "src/main.ts", "reader-thread": fileURLToPath(import.meta.resolve("@orgsim/importer/reader-thread")) },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: true,
  // pino starts its transports (pino-pretty) in worker threads from its own files.
  external: ["better-sqlite3", "onnxruntime-node", "swagger-ui-dist", "usearch", "@orgsim/native-kernel", "pino", "pino-pretty"],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  logLevel: "warning",
});

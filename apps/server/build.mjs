// Bundles the orgsim command (server, import, MCP stdio share it) into dist/ for `node dist/orgsim.mjs`.
// Native and data-carrying packages stay external: they load files next to their own code.
import { build } from "esbuild";

await build({
  entryPoints: { orgsim: "src/main.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: true,
  external: ["better-sqlite3", "onnxruntime-node", "swagger-ui-dist"],
  // CommonJS dependencies inside an ES module bundle still call require().
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  logLevel: "warning",
});

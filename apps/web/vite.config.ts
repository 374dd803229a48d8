// The single-page app, bundled into dist/ (served by `orgsim serve` at /). `pnpm dev` serves it with hot reload
// and passes /trpc to a running orgsim server (ORGSIM_URL, default http://127.0.0.1:3000).
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [react()],
  // The core's CSV writer (csv-stringify) in its browser build, which carries its own Buffer.
  resolve: { alias: { "csv-stringify/sync": "csv-stringify/browser/esm/sync" } },
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 2000 },
  server: { proxy: { "/trpc": process.env.ORGSIM_URL ?? "http://127.0.0.1:3000" } },
});

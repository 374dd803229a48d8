import { readFileSync, writeFileSync } from "node:fs";
import { markdown, plots } from "./report";
const r = JSON.parse(readFileSync(process.argv[2] ?? "results/perf.json", "utf8"));
writeFileSync("/tmp/perf-now.md", markdown(r));
const p = await plots(r);
for (const [k, v] of Object.entries(p)) writeFileSync(`/tmp/perf-${k}.svg`, v);

/**
 * Imports both corpora for every benchmarked model (the embedding step of `pnpm bench:quality`,
 * also run by it; complete imports are reused). Usage: tsx src/quality/prepare.ts [--models a,b] [--datasets yc,equities] [--subset equities=10000] [--seed 1]
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { type DatasetId, datasetSpecs, readLabelledRows, subsetSpec } from "./datasets";
import { benchDataRoot, ensureImport } from "./imports";
import { BENCH_MODELS } from "./models";

const { values } = parseArgs({ options: { models: { type: "string" }, datasets: { type: "string" }, subset: { type: "string" }, seed: { type: "string" } } });
const subsets = new Map((values.subset ? values.subset.split(",") : []).map((s) => [s.split("=")[0], Number(s.split("=")[1])]));
const seed = Number(values.seed ?? 1);
const models = values.models ? values.models.split(",") : BENCH_MODELS;
const datasets = (values.datasets ? values.datasets.split(",") : ["yc", "equities"]) as DatasetId[];
const specs = datasetSpecs();
for (const d of datasets) {
  const n = subsets.get(d);
  const spec = n ? subsetSpec(specs[d], n, seed, join(benchDataRoot(), "data")) : specs[d];
  const { rows, mapping } = await readLabelledRows(spec);
  for (const m of models) {
    const { record, reused } = await ensureImport(m, spec, mapping, rows.length);
    console.log(`${m}/${spec.id}: ${record.organizations} organizations (${reused ? "reused" : `imported in ${record.seconds} s`})`);
  }
}

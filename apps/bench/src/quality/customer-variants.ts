/**
 * `pnpm --filter @orgsim/bench quality:customer-variants [yc|equities] [sample]`: the customer-base
 * rankings considered for issue 12 item 7, built from the store port's primitives on the quality
 * bench's import (run bench:quality first), over the customer task's queries (each labelled
 * organization's customer text, itself excluded), P@10 by label with paired differences and 95%
 * intervals. The product's rule is "RRF(blend 0.5, BM25 whole)": only organizations with a customer
 * vector (API.md); bench:quality measures it through SearchService. Prints a table; writes nothing.
 *
 * cv: customer-vector ranking; cw: BM25 over customer texts; pv: profile-vector ranking; pw: BM25
 * over whole descriptions (profile texts); blend w: those of the first 100 of cv and of pv with a
 * customer vector, each scored w × customer cosine + (1 − w) × profile cosine (these corpora state
 * no customers: every customer text is extracted); "+ profile fallback": also those without a
 * customer vector, scored by their profile cosine, and every word match (the rule before API.md was
 * enforced). Each list 100 deep.
 */
import { openEmbeddedBackend } from "@orgsim/backend-embedded";
import { FUSION_DEPTH, fusedRelevance } from "@orgsim/core";
import { createEmbedder, DEFAULT_MODEL_ID } from "@orgsim/embeddings";
import { type DatasetId, datasetSpecs, readLabelledRows } from "./datasets";
import { fitQuery } from "./evaluate";
import { dataDirOf } from "./imports";
import { ci95, K, mean, precisionAtK, sample } from "./metrics";

const [dataset = "yc", size = "100000"] = process.argv.slice(2).filter((a) => a !== "--");
const spec = datasetSpecs()[dataset as DatasetId];
const { rows } = await readLabelledRows(spec);
const byId = new Map(rows.map((r) => [r.id, r]));
const labels = spec.labels.map((l) => l.field);
const eligible = rows.filter((r) => r.customerText && r.customerText.trim().length >= 3 && labels.some((l) => r.labels[l] != null));
const queries = sample(eligible, Number(size), 1);
const backend = openEmbeddedBackend({ dataDir: dataDirOf(DEFAULT_MODEL_ID, dataset) });
const store = backend.organizations;
const embedder = await createEmbedder({ modelId: DEFAULT_MODEL_ID });
const CHOSEN = "RRF(blend 0.5, BM25 whole)";

const rrf = (...lists: number[][]) => fusedRelevance(lists).map((x) => x.id);

/** Every variant's ranking of one query. */
async function variantsOf(text: string, orgId: number): Promise<Record<string, number[]>> {
  const [vector] = await embedder.embed([text], "query");
  const filter = { excludeIds: [orgId] };
  const ranking = (kind: "customer" | "profile") => store.rank({ vector: vector!, kind, filter, offset: 0, size: FUSION_DEPTH });
  const words = (kind: "customer" | "profile") => store.searchText({ text, kind, filter, size: FUSION_DEPTH });
  const [cvHits, pvHits, cw, pw] = await Promise.all([ranking("customer"), ranking("profile"), words("customer"), words("profile")]);
  const [cv, pv] = [cvHits.map((h) => h.id), pvHits.map((h) => h.id)];
  const candidates = [...new Set([...cv, ...pv])];
  const [customer, profile] = await Promise.all([
    store.similarities(vector!, "customer", [...new Set([...candidates, ...pw])]),
    store.similarities(vector!, "profile", candidates),
  ]);
  const blend = (w: number, profileFallback = false) =>
    candidates
      .flatMap((id) => {
        const c = customer.get(id);
        if (c === undefined) return profileFallback ? [{ id, s: profile.get(id)! }] : [];
        return [{ id, s: w * c + (1 - w) * profile.get(id)! }];
      })
      .sort((a, b) => b.s - a.s || a.id - b.id)
      .slice(0, FUSION_DEPTH)
      .map((x) => x.id);
  const [b3, b5, b7] = [blend(0.3), blend(0.5), blend(0.7)];
  // Word matches with a customer vector: only they may be results.
  const pwc = pw.filter((id) => customer.has(id));
  return {
    "cv (vector, unchanged)": cv,
    "RRF(cv, cw) (hybrid before)": rrf(cv, cw),
    "BM25 customer texts (cw)": cw,
    "BM25 whole descriptions (pw)": pw,
    "pv alone": pv,
    "RRF(pv, pw)": rrf(pv, pw),
    "RRF(cv, pw)": rrf(cv, pw),
    "RRF(cv, pv, pw)": rrf(cv, pv, pw),
    "RRF(cv, cw, pv, pw)": rrf(cv, cw, pv, pw),
    "blend 0.5 alone": b5,
    "RRF(blend 0.3, BM25 whole)": rrf(b3, pwc),
    [CHOSEN]: rrf(b5, pwc),
    "RRF(blend 0.5, BM25 whole) + profile fallback": rrf(blend(0.5, true), pw),
    "RRF(blend 0.7, BM25 whole)": rrf(b7, pwc),
    "RRF(blend 0.5, cw, pw)": rrf(b5, cw, pwc),
  };
}

/** Per variant and label, P@10 of each query (NaN where the query's organization lacks the label). */
const values = new Map<string, Map<string, number[]>>();
const started = performance.now();
for (const [i, r] of queries.entries()) {
  for (const [name, ranking] of Object.entries(await variantsOf(fitQuery(r.customerText!).text, r.id))) {
    if (!values.has(name)) values.set(name, new Map(labels.map((l) => [l, []])));
    for (const l of labels) {
      const value = r.labels[l];
      const p = value == null ? Number.NaN : precisionAtK(ranking.slice(0, K), (id) => byId.get(id)?.labels[l] === value);
      values.get(name)!.get(l)!.push(p);
    }
  }
  if ((i + 1) % 1000 === 0) console.error(`${i + 1}/${queries.length} queries, ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

const paired = (base: number[], cand: number[]) => {
  const d = cand.flatMap((c, i) => (Number.isNaN(c) || Number.isNaN(base[i]!) ? [] : [c - base[i]!]));
  return `${mean(d) >= 0 ? "+" : ""}${mean(d).toFixed(3)} ± ${ci95(d).toFixed(3)}`;
};
console.log(`${dataset}: ${queries.length} of ${eligible.length} customer queries (seed 1), ${DEFAULT_MODEL_ID}, embedded backend\n`);
for (const l of labels) {
  const of = (name: string) => values.get(name)!.get(l)!;
  console.log(`| ${l} | P@10 | − BM25 whole descriptions | − hybrid before | − ${CHOSEN} |\n|---|---:|---:|---:|---:|`);
  for (const name of values.keys()) {
    const xs = of(name).filter((x) => !Number.isNaN(x));
    const cells = [
      `${mean(xs).toFixed(3)} ± ${ci95(xs).toFixed(3)}`,
      ...["BM25 whole descriptions (pw)", "RRF(cv, cw) (hybrid before)", CHOSEN].map((b) => paired(of(b), of(name))),
    ];
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
  console.log("");
}
await embedder.close();
await backend.close();

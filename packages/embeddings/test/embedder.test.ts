/**
 * Runs the real models (fetched by `pnpm model:fetch`; the root `pnpm test` fetches first).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbedder, DEFAULT_MODEL_ID, MODELS, ModelFilesMissingError, type OnnxEmbedder } from "../src/index";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

const DENTAL = "Practice management software for dental clinics: scheduling, billing and patient records.";
const DENTAL_PARAPHRASE = "An app that helps dentists run their offices, book appointments and invoice patients.";
const ROCKETS = "We build reusable rocket engines for small satellite launches.";

describe.each(Object.keys(MODELS))("OnnxEmbedder %s", (modelId) => {
  let embedder: OnnxEmbedder;
  beforeAll(async () => {
    embedder = await createEmbedder({ modelId });
  });
  afterAll(async () => {
    await embedder.close();
  });

  it("records the model and returns unit vectors of the declared dimension", async () => {
    expect(embedder.modelId).toBe(modelId);
    expect(embedder.dimension).toBe(384);
    for (const purpose of ["document", "query"] as const) {
      const vectors = await embedder.embed([DENTAL, "", "x"], purpose);
      expect(vectors).toHaveLength(3);
      for (const v of vectors) {
        expect(v).toBeInstanceOf(Float32Array);
        expect(v).toHaveLength(embedder.dimension);
        expect(norm(v)).toBeCloseTo(1, 5);
      }
    }
  });

  it("is deterministic", async () => {
    const [a] = await embedder.embed([DENTAL], "document");
    const [b] = await embedder.embed([DENTAL], "document");
    expect(Array.from(b!)).toEqual(Array.from(a!));
  });

  it("keeps input order in batches and matches one-by-one results", async () => {
    // Lengths deliberately unsorted so the length-sorted batching has to restore order.
    const texts = [ROCKETS, "Payroll.", `${DENTAL} ${DENTAL_PARAPHRASE} ${ROCKETS}`, DENTAL, "Carbon removal at gigaton scale.", DENTAL_PARAPHRASE];
    const batched = await embedder.embed(texts, "document");
    for (const [i, text] of texts.entries()) {
      const [single] = await embedder.embed([text], "document");
      const maxDiff = Math.max(...single!.map((x, d) => Math.abs(x - batched[i]![d]!)));
      expect(maxDiff).toBeLessThan(1e-5);
    }
  });

  it("keeps order with larger batches too, at the cost of batch-dependent vectors", async () => {
    const batching = await createEmbedder({ modelId, batchSize: 4 });
    try {
      const texts = [ROCKETS, "Payroll.", DENTAL, "Carbon removal at gigaton scale.", DENTAL_PARAPHRASE];
      const batched = await batching.embed(texts, "document");
      const single = await embedder.embed(texts, "document");
      // Dynamic int8 quantization shares one scale per batch tensor: close (cosine ~0.98
      // measured for MiniLM), not equal. Each vector must still be nearest its own text's.
      for (const [i, v] of batched.entries()) {
        const sims = single.map((s) => dot(v, s));
        expect(sims.indexOf(Math.max(...sims))).toBe(i);
        expect(sims[i]).toBeGreaterThan(0.95);
      }
    } finally {
      await batching.close();
    }
  });

  it("scores paraphrases above unrelated text", async () => {
    const [dental, paraphrase, rockets] = await embedder.embed([DENTAL, DENTAL_PARAPHRASE, ROCKETS], "document");
    expect(dot(dental!, paraphrase!)).toBeGreaterThan(dot(dental!, rockets!) + 0.1);
  });

  it("retrieves the matching document for a short query", async () => {
    const [query] = await embedder.embed(["software for dentists"], "query");
    const [dental, rockets] = await embedder.embed([DENTAL, ROCKETS], "document");
    expect(dot(query!, dental!)).toBeGreaterThan(dot(query!, rockets!));
  });

  it("applies the query prefix only to queries, and only for models that use one", async () => {
    const [asQuery] = await embedder.embed([DENTAL], "query");
    const [asDocument] = await embedder.embed([DENTAL], "document");
    if (MODELS[modelId as keyof typeof MODELS].queryPrefix) {
      expect(dot(asQuery!, asDocument!)).toBeLessThan(0.9999);
      expect(dot(asQuery!, asDocument!)).toBeGreaterThan(0.7);
    } else {
      expect(Array.from(asQuery!)).toEqual(Array.from(asDocument!));
    }
  });

  it("truncates texts longer than the token budget", async () => {
    const long = `${DENTAL} ${"lorem ipsum dolor sit amet ".repeat(2000)}`;
    const [v] = await embedder.embed([long], "document");
    expect(norm(v!)).toBeCloseTo(1, 5);
  });

  it("returns nothing for no texts", async () => {
    expect(await embedder.embed([], "document")).toEqual([]);
  });
});

describe("createEmbedder", () => {
  it("uses the default model when none is named", async () => {
    const previous = process.env.ORGSIM_MODEL;
    delete process.env.ORGSIM_MODEL;
    try {
      const embedder = await createEmbedder();
      expect(embedder.modelId).toBe(DEFAULT_MODEL_ID);
      await embedder.close();
      await expect(embedder.embed(["x"], "document")).rejects.toThrow(/closed/);
    } finally {
      if (previous !== undefined) process.env.ORGSIM_MODEL = previous;
    }
  });

  it("names the missing file and the fetch command when the model is not installed", async () => {
    const empty = mkdtempSync(join(tmpdir(), "orgsim-no-models-"));
    try {
      const attempt = createEmbedder({ modelId: "bge-small-en-v1.5-q", modelDir: empty });
      await expect(attempt).rejects.toBeInstanceOf(ModelFilesMissingError);
      await expect(attempt).rejects.toThrow(join(empty, "bge-small-en-v1.5-q", "bge-small-en-v1.5-q.onnx"));
      await expect(attempt).rejects.toThrow("pnpm model:fetch");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("rejects unknown model ids, listing the known ones", async () => {
    await expect(createEmbedder({ modelId: "nope" })).rejects.toThrow(/Known models: .*bge-small-en-v1.5-q/);
  });
});

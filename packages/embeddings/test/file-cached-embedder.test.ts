/** The vectors file for texts embedded again and again, around the real default model. */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Embedder, EmbeddingPurpose } from "@orgsim/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmbedder, FileCachedEmbedder, type OnnxEmbedder } from "../src/index";

const TEXTS = ["Practice management software for dental clinics.", "Reusable rocket engines for small satellites.", ""];
const dir = mkdtempSync(join(tmpdir(), "orgsim-vectors-"));
let model: OnnxEmbedder;

/** The real model, counting the texts it is asked to embed. */
function counted(): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    modelId: model.modelId,
    dimension: model.dimension,
    embed(batch: readonly string[], purpose: EmbeddingPurpose) {
      texts.push(...batch);
      return model.embed(batch, purpose);
    },
    close: async () => {},
  };
}

/** A vectors file named `name` in `dir`, holding TEXTS' document vectors as a FileCachedEmbedder saves them. */
async function savedFile(name: string): Promise<string> {
  const file = join(dir, name);
  const cached = new FileCachedEmbedder(counted(), file);
  await cached.embed(TEXTS, "document");
  cached.save();
  return file;
}

beforeAll(async () => {
  model = await createEmbedder();
});
afterAll(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("FileCachedEmbedder", () => {
  it("answers a later instance from the file with the model's own vectors, and embeds only texts it has not seen", async () => {
    const file = join(dir, "kept.bin");
    const expected = await model.embed(TEXTS, "document");
    const first = new FileCachedEmbedder(counted(), file);
    expect(first.loaded).toBe(0);
    expect(await first.embed(TEXTS, "document")).toEqual(expected);
    first.save();

    const inner = counted();
    const second = new FileCachedEmbedder(inner, file);
    expect([second.loaded, second.modelId, second.dimension]).toEqual([TEXTS.length, model.modelId, model.dimension]);
    expect(await second.embed(TEXTS, "document")).toEqual(expected);
    expect(inner.texts).toEqual([]);
    const [extra] = await second.embed(["A bakery chain in Lyon.", TEXTS[0] as string], "document");
    expect(inner.texts).toEqual(["A bakery chain in Lyon."]);
    expect(extra).toEqual((await model.embed(["A bakery chain in Lyon."], "document"))[0]);
  });

  it("keeps a text's vector per purpose (a query may be embedded with a prefix)", async () => {
    const file = await savedFile("purpose.bin");
    const inner = counted();
    expect(await new FileCachedEmbedder(inner, file).embed(TEXTS, "query")).toEqual(await model.embed(TEXTS, "query"));
    expect(inner.texts).toEqual(TEXTS);
  });

  it("starts empty from a file that is not its own, of another dimension or cut short, and rewrites it", async () => {
    const file = await savedFile("bad.bin");
    const whole = readFileSync(file);
    const otherDimension = Buffer.from(whole);
    otherDimension.writeUInt32LE(768, "orgsim-vectors-1\n".length);
    for (const write of [() => writeFileSync(file, "not vectors"), () => writeFileSync(file, otherDimension), () => truncateSync(file, whole.length - 7)]) {
      write();
      const inner = counted();
      const cached = new FileCachedEmbedder(inner, file);
      expect(cached.loaded).toBe(0);
      await cached.embed(TEXTS, "document");
      expect(inner.texts).toEqual(TEXTS);
      cached.save();
      expect(readFileSync(file).equals(whole)).toBe(true);
    }
  });

  it("leaves out a stored vector that is not of unit length, and embeds its text again", async () => {
    const file = await savedFile("scaled.bin");
    // The file's first entry: after the header (magic and dimension), its key (20 bytes), then its floats.
    const bytes = readFileSync(file);
    const first = "orgsim-vectors-1\n".length + 4 + 20;
    bytes.writeFloatLE(bytes.readFloatLE(first) + 0.5, first);
    writeFileSync(file, bytes);
    const inner = counted();
    const cached = new FileCachedEmbedder(inner, file);
    expect(cached.loaded).toBe(TEXTS.length - 1);
    expect(await cached.embed(TEXTS, "document")).toEqual(await model.embed(TEXTS, "document"));
    expect(inner.texts).toEqual([TEXTS[0]]);
  });

  it("writes nothing when every text came from the file", async () => {
    const file = await savedFile("unchanged.bin");
    const second = new FileCachedEmbedder(counted(), file);
    await second.embed(TEXTS, "document");
    rmSync(file);
    second.save();
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });
});

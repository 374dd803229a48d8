/**
 * An embedder that remembers the vectors of the texts it embeds in one file, for texts embedded
 * again and again: the sample organizations every new data directory starts with (400 of them took
 * about 14 s on 2 cores, at every test server's start). Keyed by the exact text and purpose, in
 * a file per model, so a changed text or model embeds afresh.
 */
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dot, type Embedder, type EmbeddingPurpose } from "@orgsim/core";

// File layout: MAGIC, the dimension (uint32 LE), then per text its key (KEY_BYTES) and its floats (f32 LE).
const MAGIC = Buffer.from("orgsim-vectors-1\n");
const KEY_BYTES = 20;

const keyOf = (text: string, purpose: EmbeddingPurpose) => createHash("sha1").update(purpose).update("\0").update(text).digest("hex");

export class FileCachedEmbedder implements Embedder {
  private readonly vectors: Map<string, Float32Array>;
  private added = 0;

  /** Reads `file` when it holds vectors of this model's dimension; a missing or unreadable file starts empty. */
  constructor(
    private readonly inner: Embedder,
    private readonly file: string,
  ) {
    this.vectors = readVectors(file, inner.dimension);
  }

  get modelId() {
    return this.inner.modelId;
  }

  get dimension() {
    return this.inner.dimension;
  }

  /** How many texts the file held when opened. */
  get loaded(): number {
    return this.vectors.size - this.added;
  }

  async embed(texts: readonly string[], purpose: EmbeddingPurpose): Promise<Float32Array[]> {
    const keys = texts.map((text) => keyOf(text, purpose));
    const missing = keys.flatMap((key, i) => (this.vectors.has(key) ? [] : [i]));
    const missingTexts = missing.map((i) => texts[i] as string);
    const embedded = missing.length > 0 ? await this.inner.embed(missingTexts, purpose) : [];
    embedded.forEach((vector, j) => {
      this.vectors.set(keys[missing[j] as number] as string, vector);
      this.added++;
    });
    return keys.map((key) => (this.vectors.get(key) as Float32Array).slice());
  }

  /** Writes the file when texts were added (to a temporary file renamed over it: readers never see half a file). */
  save(): void {
    if (this.added === 0) return;
    const dimension = Buffer.alloc(4);
    dimension.writeUInt32LE(this.dimension);
    const parts: Buffer[] = [MAGIC, dimension];
    for (const [key, vector] of this.vectors) parts.push(Buffer.from(key, "hex"), Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, Buffer.concat(parts));
    renameSync(temporary, this.file);
    this.added = 0;
  }

  /** The inner embedder belongs to the caller. */
  async close(): Promise<void> {}
}

/** The file's vectors by key; empty when it is missing, of another dimension or cut short. Vectors that are not unit length are left out. */
function readVectors(file: string, dimension: number): Map<string, Float32Array> {
  const vectors = new Map<string, Float32Array>();
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return vectors;
  }
  const header = MAGIC.length + 4;
  const entry = KEY_BYTES + dimension * 4;
  const valid = bytes.length >= header && bytes.subarray(0, MAGIC.length).equals(MAGIC) && bytes.readUInt32LE(MAGIC.length) === dimension;
  if (!valid || (bytes.length - header) % entry !== 0) return vectors;
  for (let offset = header; offset < bytes.length; offset += entry) {
    const vector = new Float32Array(dimension);
    Buffer.from(vector.buffer).set(bytes.subarray(offset + KEY_BYTES, offset + entry));
    if (Math.abs(dot(Float64Array.from(vector), vector) - 1) < 2e-3) vectors.set(bytes.toString("hex", offset, offset + KEY_BYTES), vector);
  }
  return vectors;
}

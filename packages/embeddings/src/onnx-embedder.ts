import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Embedder, EmbeddingPurpose } from "@orgsim/core";
import { Tokenizer } from "@huggingface/tokenizers";
import { InferenceSession, Tensor } from "onnxruntime-node";
import type { ModelSpec } from "./models";

export interface OnnxEmbedderOptions {
  /**
   * Texts per ONNX run. Default 1, on purpose: the quantized graphs quantize activations
   * dynamically with one scale per tensor, so in a batch each vector depends on its
   * neighbours and on padding (cosine to the unbatched vector down to ~0.98). One text per
   * run makes a text's vector the same whatever it is embedded with. The price, measured on
   * 2 cores: bge ~40 docs/s instead of ~65 with batches of 8. Bulk jobs that accept
   * batch-dependent vectors may opt in. (Concurrent runs on one session do not overlap in
   * onnxruntime-node, so parallel single-text runs are no way around it.)
   */
  batchSize?: number;
  /** ONNX intra-op threads; defaults to the machine's cores (at most 4). */
  threads?: number;
  /** Overrides the model's token budget (used by the bench to measure the trade-off). */
  maxTokens?: number;
}

/** Paths of one model's files, as laid out by scripts/fetch-models.ts. */
export interface ModelFiles {
  onnxPath: string;
  tokenizerPath: string;
}

interface Encoded {
  ids: number[];
}

/**
 * Characters kept per token of budget before tokenizing. Word pieces average ~4-5
 * characters, so 16 never cuts text the token limit would have kept, while a
 * megabyte-long input is not tokenized in full only to be truncated.
 */
const CHARS_PER_TOKEN_CAP = 16;

/** Sentence encoder running a BERT-style ONNX graph on the CPU. */
export class OnnxEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimension: number;
  private session: InferenceSession | null;
  private readonly maxTokens: number;
  private readonly batchSize: number;
  /** Whether the graph declares token_type_ids (BERT graphs do; some exports drop it). */
  private readonly wantsTokenTypes: boolean;

  private constructor(
    private readonly spec: ModelSpec,
    private readonly tokenizer: Tokenizer,
    session: InferenceSession,
    options: OnnxEmbedderOptions,
  ) {
    this.modelId = spec.id;
    this.dimension = spec.dimension;
    this.session = session;
    this.maxTokens = options.maxTokens ?? spec.maxTokens;
    this.batchSize = Math.max(1, options.batchSize ?? 1);
    this.wantsTokenTypes = session.inputNames.includes("token_type_ids");
  }

  static async load(spec: ModelSpec, files: ModelFiles, options: OnnxEmbedderOptions = {}): Promise<OnnxEmbedder> {
    // The jars ship no tokenizer_config.json; nothing in it matters for WordPiece
    // tokenizers (it only carries Unigram's eos token and decoding options), so {} is enough.
    const tokenizer = new Tokenizer(JSON.parse(readFileSync(files.tokenizerPath, "utf8")), {});
    const session = await InferenceSession.create(files.onnxPath, {
      // One graph run at a time uses all cores through intra-op parallelism; inter-op
      // threads only help graphs with parallel branches, which BERT has not.
      intraOpNumThreads: options.threads ?? Math.min(availableParallelism(), 4),
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all",
    });
    return new OnnxEmbedder(spec, tokenizer, session, options);
  }

  async embed(texts: readonly string[], purpose: EmbeddingPurpose): Promise<Float32Array[]> {
    this.openSession();
    const prefix = purpose === "query" ? this.spec.queryPrefix : (this.spec.documentPrefix ?? "");
    const encoded = texts.map((t) => this.encode(prefix + t));

    // Sort by length so each batch (when batchSize > 1) pads to a similar length, then
    // write results back at their original positions.
    const order = encoded.map((_, i) => i).sort((a, b) => encoded[a]!.ids.length - encoded[b]!.ids.length);
    const out = new Array<Float32Array>(texts.length);
    for (let start = 0; start < order.length; start += this.batchSize) {
      const idx = order.slice(start, start + this.batchSize);
      // Re-checked per batch: close() may be called while a long embed() is running.
      const vectors = await this.runBatch(
        this.openSession(),
        idx.map((i) => encoded[i]!),
      );
      idx.forEach((i, k) => {
        out[i] = vectors[k]!;
      });
    }
    return out;
  }

  async close(): Promise<void> {
    const session = this.session;
    this.session = null;
    await session?.release();
  }

  private openSession(): InferenceSession {
    if (!this.session) throw new Error(`Embedder ${this.modelId} is closed`);
    return this.session;
  }

  /** Token ids with [CLS] … [SEP], truncated to the budget while keeping the final [SEP]. */
  private encode(text: string): Encoded {
    const capped = text.length > this.maxTokens * CHARS_PER_TOKEN_CAP ? text.slice(0, this.maxTokens * CHARS_PER_TOKEN_CAP) : text;
    const { ids } = this.tokenizer.encode(capped);
    if (ids.length <= this.maxTokens) return { ids };
    return { ids: [...ids.slice(0, this.maxTokens - 1), ids[ids.length - 1]!] };
  }

  private async runBatch(session: InferenceSession, batch: Encoded[]): Promise<Float32Array[]> {
    const rows = batch.length;
    const cols = Math.max(...batch.map((e) => e.ids.length));
    const ids = new BigInt64Array(rows * cols); // zero = [PAD] for these vocabularies
    const mask = new BigInt64Array(rows * cols);
    batch.forEach((e, r) => {
      e.ids.forEach((id, c) => {
        ids[r * cols + c] = BigInt(id);
        mask[r * cols + c] = 1n;
      });
    });
    const shape = [rows, cols];
    const feeds: Record<string, Tensor> = {
      input_ids: new Tensor("int64", ids, shape),
      attention_mask: new Tensor("int64", mask, shape),
    };
    // Single-sentence inputs are all segment 0.
    if (this.wantsTokenTypes) feeds.token_type_ids = new Tensor("int64", new BigInt64Array(rows * cols), shape);

    const result = await session.run(feeds);
    const hidden = result.last_hidden_state;
    if (!hidden) throw new Error(`Model ${this.modelId} has no last_hidden_state output`);
    const data = hidden.data as Float32Array;
    const dim = this.dimension;
    const vectors: Float32Array[] = [];
    for (let r = 0; r < rows; r++) {
      const base = r * cols * dim;
      const v = new Float32Array(dim);
      if (this.spec.pooling === "cls") {
        v.set(data.subarray(base, base + dim));
      } else {
        // Mean over real tokens only: padding positions still get hidden states.
        const n = batch[r]!.ids.length;
        for (let t = 0; t < n; t++) {
          const off = base + t * dim;
          for (let d = 0; d < dim; d++) v[d]! += data[off + d]!;
        }
        for (let d = 0; d < dim; d++) v[d]! /= n;
      }
      vectors.push(normalize(v));
    }
    for (const t of Object.values(result)) t.dispose();
    return vectors;
  }
}

function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

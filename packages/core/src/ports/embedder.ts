/**
 * Port: turns text into unit-length vectors. Adapters live outside the core
 * (packages/embeddings holds the ONNX one).
 */
export type EmbeddingPurpose =
  /** Text stored with an organization (its profile or its customers). */
  | "document"
  /** Text a user searches with; some models want a query prefix. */
  | "query";

export interface Embedder {
  /** Stable model identifier recorded with every stored vector, e.g. "bge-small-en-v1.5-q". */
  readonly modelId: string;
  /** Vector length. */
  readonly dimension: number;
  /** Embeds texts in order; every returned vector has length `dimension` and L2 norm 1. */
  embed(texts: readonly string[], purpose: EmbeddingPurpose): Promise<Float32Array[]>;
  /** Releases native resources. */
  close(): Promise<void>;
}

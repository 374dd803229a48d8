/** The models the quality bench compares: the default first. */
export const BENCH_MODELS = ["bge-small-en-v1.5-q", "e5-small-v2-q", "all-minilm-l6-v2-q"];

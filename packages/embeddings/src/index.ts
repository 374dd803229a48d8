export { createEmbedder, type CreateEmbedderOptions, ModelFilesMissingError, modelFiles } from "./create-embedder";
export { FileCachedEmbedder } from "./file-cached-embedder";
export { DEFAULT_MODEL_ID, getModelSpec, isModelId, MODELS, type ModelId, type ModelSpec } from "./models";
export { type ModelFiles, OnnxEmbedder, type OnnxEmbedderOptions } from "./onnx-embedder";
export { defaultModelDir, findRepoRoot } from "./paths";

import { existsSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_MODEL_ID, getModelSpec, type ModelSpec } from "./models";
import { type ModelFiles, OnnxEmbedder, type OnnxEmbedderOptions } from "./onnx-embedder";
import { defaultModelDir } from "./paths";

export interface CreateEmbedderOptions extends OnnxEmbedderOptions {
  /** Model id from MODELS; defaults to $ORGSIM_MODEL, else DEFAULT_MODEL_ID. */
  modelId?: string;
  /** Cache root holding one folder per model; defaults to $ORGSIM_MODEL_DIR or <repo>/.orgsim/models. */
  modelDir?: string;
}

/** Thrown when a model's files are not in the cache, naming the file and the fix. */
export class ModelFilesMissingError extends Error {
  constructor(
    readonly modelId: string,
    readonly missingPath: string,
  ) {
    super(
      `Embedding model "${modelId}" is not installed: ${missingPath} does not exist. ` +
        "Run `pnpm model:fetch` from the repository root (set ORGSIM_MODEL_DIR if the models live elsewhere).",
    );
    this.name = "ModelFilesMissingError";
  }
}

/** Where a model's files are expected, whether or not they exist. */
export function modelFiles(spec: ModelSpec, modelDir: string = defaultModelDir()): ModelFiles {
  const dir = join(modelDir, spec.id);
  return { onnxPath: join(dir, spec.onnxFile), tokenizerPath: join(dir, spec.tokenizerFile) };
}

/** Loads the configured ONNX encoder; fails fast with ModelFilesMissingError when not fetched. */
export async function createEmbedder(options: CreateEmbedderOptions = {}): Promise<OnnxEmbedder> {
  const { modelId, modelDir, ...rest } = options;
  const spec = getModelSpec(modelId ?? (process.env.ORGSIM_MODEL || DEFAULT_MODEL_ID));
  const files = modelFiles(spec, modelDir ?? defaultModelDir());
  for (const path of [files.onnxPath, files.tokenizerPath]) {
    if (!existsSync(path)) throw new ModelFilesMissingError(spec.id, path);
  }
  return OnnxEmbedder.load(spec, files, rest);
}

/**
 * The kernel's WebAssembly binary, compiled from its text (src/vector-matrix/score-rows.wat) by wabt, the
 * WebAssembly Community Group's toolkit. Used by the build script and by the test that checks the
 * committed binary is the text's.
 */
import { readFileSync } from "node:fs";
import wabt from "wabt";

export const KERNEL_SOURCE = new URL("../src/vector-matrix/score-rows.wat", import.meta.url);
export const KERNEL_MODULE = new URL("../src/vector-matrix/score-rows.wasm.ts", import.meta.url);

export async function kernelBinary(): Promise<Uint8Array> {
  const toolkit = await wabt();
  const parsed = toolkit.parseWat("score-rows.wat", readFileSync(KERNEL_SOURCE, "utf8"), { simd: true });
  try {
    parsed.validate();
    return parsed.toBinary({}).buffer;
  } finally {
    parsed.destroy();
  }
}

/** The TypeScript module holding the binary (base64: it loads from a bundle too, with no file beside it). */
export function kernelModuleText(binary: Uint8Array): string {
  return [
    "// Generated from score-rows.wat by `pnpm --filter @orgsim/backend-embedded build:kernel`; do not edit.",
    // As biome formats it: the long string on a line of its own.
    "export const SCORE_ROWS_WASM =",
    `  "${Buffer.from(binary).toString("base64")}";`,
    "",
  ].join("\n");
}

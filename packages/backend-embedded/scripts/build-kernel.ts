/** `pnpm --filter @orgsim/backend-embedded build:kernel`: compiles src/vector-matrix/score-rows.wat into score-rows.wasm.ts. */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { KERNEL_MODULE, kernelBinary, kernelModuleText } from "./kernel-binary";

const binary = await kernelBinary();
writeFileSync(KERNEL_MODULE, kernelModuleText(binary));
console.log(`${fileURLToPath(KERNEL_MODULE)}: ${binary.length} bytes of WebAssembly`);

import type { Worker } from "node:worker_threads";

/**
 * Asks a worker thread to end (`ask`) and resolves once it has exited. The worker is held (ref)
 * meanwhile: an unreferenced worker would let the process end while its caller waits.
 */
export async function endWorker(worker: Worker, ask: () => void): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.ref();
  ask();
  await exited;
}

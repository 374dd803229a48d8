/**
 * The backend and the model, timed for the operators' metrics: each call's duration goes to a
 * callback (the server records it; runtime knows no metrics library). Nothing else changes.
 */
import type { Embedder, OrganizationStore } from "@orgsim/core";

export interface Observers {
  /** A store call ended: which method, how long, and whether it failed. */
  storeCall?(operation: string, seconds: number, failed: boolean): void;
  /** The model embedded `texts` texts. */
  embedding?(purpose: string, texts: number, seconds: number): void;
}

/** `store` with every asynchronous method timed. */
export function observedStore(store: OrganizationStore, storeCall: NonNullable<Observers["storeCall"]>): OrganizationStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        const started = performance.now();
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        const end = (failed: boolean) => storeCall(property, (performance.now() - started) / 1000, failed);
        return result.then(
          (answer) => {
            end(false);
            return answer;
          },
          (error) => {
            end(true);
            throw error;
          },
        );
      };
    },
  });
}

/** `embedder` with every embed call timed. */
export function observedEmbedder(embedder: Embedder, embedding: NonNullable<Observers["embedding"]>): Embedder {
  return {
    get modelId() {
      return embedder.modelId;
    },
    get dimension() {
      return embedder.dimension;
    },
    async embed(texts, purpose) {
      const started = performance.now();
      try {
        return await embedder.embed(texts, purpose);
      } finally {
        embedding(purpose, texts.length, (performance.now() - started) / 1000);
      }
    },
    close: () => embedder.close(),
  };
}

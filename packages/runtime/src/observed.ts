/**
 * The searches, the backend and the model, observed for operators: each call can run inside a
 * trace span and report its duration (the server records both; runtime knows no metrics or
 * tracing library). Nothing else changes.
 */
import type { Embedder, OrganizationStore, SearchService } from "@orgsim/core";

/** Runs a call inside a span of that name. */
export type SpanRunner = <T>(name: string, run: () => T) => T;

export interface Observers {
  /** A store call ended: which method, how long, and whether it failed. */
  storeCall?(operation: string, seconds: number, failed: boolean): void;
  /** The model embedded `texts` texts. */
  embedding?(purpose: string, texts: number, seconds: number): void;
  /** Wraps searches ("search.<method>"), store calls ("backend.<method>") and model runs ("embedding.<purpose>"). */
  span?: SpanRunner;
}

const inline: SpanRunner = (_name, run) => run();

/** `target` with every method call run by `span` as "<prefix>.<method>", and each asynchronous call timed to `timing`. */
function observedMethods<T extends object>(
  target: T,
  prefix: string,
  span: SpanRunner,
  timing?: (method: string, seconds: number, failed: boolean) => void,
): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) =>
        span(`${prefix}.${property}`, () => {
          const started = performance.now();
          const result = value.apply(object, args);
          if (!timing || !(result instanceof Promise)) return result;
          const end = (failed: boolean) => timing(property, (performance.now() - started) / 1000, failed);
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
        });
    },
  });
}

export const observedStore = (store: OrganizationStore, observers: Observers): OrganizationStore =>
  observedMethods(store, "backend", observers.span ?? inline, observers.storeCall);

/** Searches in spans (unchanged without a span runner). */
export const observedSearch = (search: SearchService, observers: Observers): SearchService =>
  observers.span ? observedMethods(search, "search", observers.span) : search;

/** `embedder` with every embed call in a span and timed. */
export function observedEmbedder(embedder: Embedder, observers: Observers): Embedder {
  const span = observers.span ?? inline;
  return {
    get modelId() {
      return embedder.modelId;
    },
    get dimension() {
      return embedder.dimension;
    },
    embed(texts, purpose) {
      return span(`embedding.${purpose}`, async () => {
        const started = performance.now();
        try {
          return await embedder.embed(texts, purpose);
        } finally {
          observers.embedding?.(purpose, texts.length, (performance.now() - started) / 1000);
        }
      });
    },
    close: () => embedder.close(),
  };
}

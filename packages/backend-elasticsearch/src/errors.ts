/**
 * Elasticsearch failures as the contract's errors, in one place: every store call runs through
 * `guarded`. A cluster that cannot be reached, does not answer in time or sheds load
 * (HTTP 429/502/503/504) is BACKEND_UNAVAILABLE (503): the caller may retry, and the server
 * recovers by itself when the cluster is back. Messages say what happened without internals
 * (no hosts, stack traces or client messages); the operator's log gets one line when the
 * cluster goes away and one when it answers again.
 */
import { errors, SniffingTransport, type TransportOptions } from "@elastic/elasticsearch";
import { OrgsimError } from "@orgsim/core";

/** HTTP statuses of a cluster that is overloaded or (partly) down: retrying later helps. */
export const UNAVAILABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export const statusOf = (error: unknown): number | undefined => (error instanceof errors.ResponseError ? error.statusCode : undefined);

/** `type: reason` of an Elasticsearch error response, for messages. */
export function reasonOf(error: unknown): string {
  if (error instanceof errors.ResponseError) {
    const cause = (error.body as { error?: { type?: string; reason?: string; root_cause?: { type?: string; reason?: string }[] } } | undefined)?.error;
    const root = cause?.root_cause?.[0];
    if (cause?.type || root) return `${cause?.type ?? root?.type}: ${cause?.reason ?? root?.reason ?? ""}`.trim();
    return `HTTP ${error.statusCode}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The client's errors for a cluster it could not talk to (as opposed to one that answered). */
const isTransportFailure = (error: unknown) =>
  error instanceof errors.ConnectionError ||
  error instanceof errors.NoLivingConnectionsError ||
  error instanceof errors.TimeoutError ||
  error instanceof errors.RequestAbortedError;

/** True when `error` means the cluster is unreachable or overloaded (retrying later may work). */
export const isUnavailable = (error: unknown) => isTransportFailure(error) || UNAVAILABLE_STATUSES.has(statusOf(error) ?? 0);

/** The client-facing BACKEND_UNAVAILABLE for a failure `isUnavailable` accepts. */
function unavailableError(error: unknown): OrgsimError {
  const status = statusOf(error);
  const [message, reason] =
    error instanceof errors.TimeoutError
      ? ["Elasticsearch did not answer in time", "timeout"]
      : error instanceof errors.RequestAbortedError
        ? ["The request to Elasticsearch was aborted", "aborted"]
        : status === 429
          ? ["Elasticsearch is overloaded (HTTP 429)", "overloaded"]
          : status !== undefined
            ? [`Elasticsearch is unavailable (HTTP ${status})`, "unavailable"]
            : ["Elasticsearch is unreachable", "unreachable"];
  const mapped = new OrgsimError("BACKEND_UNAVAILABLE", `${message}; retry shortly`, {
    backend: "elasticsearch",
    reason,
    ...(status ? { elasticsearch_status: status } : {}),
  });
  // For a debugger or a server log; the contract error shows only code, message and details.
  Object.defineProperty(mapped, "cause", { value: error, enumerable: false });
  return mapped;
}

/** Maps client errors to the contract's codes; OrgsimErrors pass through. */
export function toOrgsimError(error: unknown): Error {
  if (error instanceof OrgsimError) return error;
  if (isUnavailable(error)) return unavailableError(error);
  if (error instanceof errors.ElasticsearchClientError) {
    return new OrgsimError("INTERNAL", `Elasticsearch request failed: ${reasonOf(error)}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** Clusters (by URL) that last failed as unavailable: the log says when each goes away and comes back. */
const unavailableSince = new Map<string, number>();

function noteAvailability(url: string, error: unknown | null): void {
  if (error === null) {
    const since = unavailableSince.get(url);
    if (since === undefined) return;
    unavailableSince.delete(url);
    console.error(`orgsim: Elasticsearch at ${url} answers again (after ${((Date.now() - since) / 1000).toFixed(1)} s)`);
  } else if (!unavailableSince.has(url)) {
    unavailableSince.set(url, Date.now());
    console.error(`orgsim: Elasticsearch at ${url} is unavailable (${reasonOf(error)}); requests that need it answer 503 BACKEND_UNAVAILABLE until it is back`);
  }
}

/**
 * Runs `fn` (store work against the cluster at `url`), reporting client errors as
 * OrgsimErrors: unreachable, timed out or overloaded is BACKEND_UNAVAILABLE. Both backends map
 * errors this one way, an explicit `guarded` around each method's store work (not a Proxy over
 * every method): only work that reaches the cluster counts for the availability log, so `ping`
 * (false rather than an error) and checks made before any request stay outside.
 */
export async function guarded<T>(url: string, fn: () => Promise<T>): Promise<T> {
  try {
    const result = await fn();
    noteAvailability(url, null);
    return result;
  } catch (error) {
    if (isUnavailable(error)) noteAvailability(url, error);
    // Any other answer (a 404, a refused document) shows the cluster is there.
    else if (error instanceof errors.ResponseError) noteAvailability(url, null);
    throw toOrgsimError(error);
  }
}

/**
 * Seconds to wait before retry `attempt` (1, 2, …) after a connection error: 0.05–0.1 s, then
 * 0.1–0.2 s, 0.2–0.4 s, at most 1 s. The client's default (1–2 s, then 2–4 s each) makes a
 * stopped single-node cluster answer a request only after 5–10 s of retries; short waits still
 * ride out a dropped keep-alive connection, and a node that is down for longer fails fast.
 * (The client retries 502/503/504 answers at once and never waits on them.)
 */
export function quickRetryBackoff(_min: number, _max: number, attempt: number): number {
  const ceiling = Math.min(1, 0.1 * 2 ** (attempt - 1));
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}

/** The client's default transport with `quickRetryBackoff` (the client has no option for it). */
export class QuickRetryTransport extends SniffingTransport {
  constructor(options: TransportOptions) {
    super({ ...options, retryBackoff: quickRetryBackoff });
  }
}

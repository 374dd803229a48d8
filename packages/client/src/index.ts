/**
 * The typed client for TypeScript apps: every procedure of the orgsim router,
 * with its inputs and outputs inferred end to end.
 *
 *   const orgsim = createOrgsimClient({ url: "http://127.0.0.1:3000" });
 *   const { data } = await orgsim.search.similarToDescription.query({ description: "…", countries: ["FR"] });
 */
import type { AppRouter, ContractError } from "@orgsim/api";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";

export type { AppRouter } from "@orgsim/api";

export interface OrgsimClientOptions {
  /** The server's base URL, e.g. http://127.0.0.1:3000 (the client talks to `${url}/trpc`). */
  url: string;
  /** An API key, sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  fetch?: typeof fetch;
}

export function createOrgsimClient(options: OrgsimClientOptions) {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${options.url.replace(/\/$/, "")}/trpc`,
        headers: () => (options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  });
}

export type OrgsimClient = ReturnType<typeof createOrgsimClient>;

/** The contract's error (code, message, status, details, request_id) carried by a failed call, if any. */
export function orgsimErrorOf(error: unknown): ContractError | null {
  if (error instanceof TRPCClientError) {
    const data = error.data as { error?: ContractError } | undefined;
    return data?.error ?? null;
  }
  return null;
}

/** Every failure the app shows, as the contract's error (message, code, request_id) when the server sent one. */
import { orgsimErrorOf } from "@orgsim/client";

export interface ShownError {
  message: string;
  code: string | null;
  requestId: string | null;
}

export function shownErrorOf(error: unknown): ShownError {
  const contract = orgsimErrorOf(error);
  if (contract) return { message: contract.message, code: contract.code, requestId: contract.request_id ?? null };
  // No contract error: the server was not reached, or answered something that is not orgsim.
  const message = error instanceof Error ? error.message : String(error);
  return { message: `The orgsim server could not be reached (${message})`, code: null, requestId: null };
}

export const isUnauthorized = (error: unknown) => orgsimErrorOf(error)?.code === "UNAUTHORIZED";

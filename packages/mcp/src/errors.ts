/**
 * Tool errors. Whatever a tool throws becomes a tool result with `isError: true`
 * carrying the contract's code and message (the same mapping as REST and tRPC:
 * core's `contractErrorOf`), never a protocol error.
 *
 * Error results carry no `structuredContent`: the SDK client (1.32) validates any
 * structuredContent against the tool's outputSchema even when `isError` is true, so
 * an `{ error }` object there would make `client.callTool` throw. The contract's
 * error object travels instead in the text (first line `CODE: message`, then its
 * details as JSON) and, for programs, in `_meta["orgsim/error"]`.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type ContractError, contractErrorOf, OrgsimError } from "@orgsim/core";

export const ERROR_META_KEY = "orgsim/error";

/** At most this many validation issues are repeated in the text (all are in `_meta`). */
const TEXT_ISSUES_MAX = 20;

export function errorResult(error: unknown, requestId: string | null, log: (line: string) => void): CallToolResult {
  const contract = contractErrorOf(error, requestId);
  if (contract.code === "INTERNAL") log(`tool failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return {
    isError: true,
    content: [{ type: "text", text: errorText(contract) }],
    _meta: { [ERROR_META_KEY]: contract },
  };
}

function errorText(contract: ContractError): string {
  const lines = [`${contract.code}: ${contract.message}`];
  const details = { ...contract.details };
  const issues = details.issues;
  if (Array.isArray(issues) && issues.length > TEXT_ISSUES_MAX) {
    details.issues = issues.slice(0, TEXT_ISSUES_MAX);
    details.issues_not_shown = issues.length - TEXT_ISSUES_MAX;
  }
  if (Object.keys(details).length > 0) lines.push(`details: ${JSON.stringify(details)}`);
  return lines.join("\n");
}

/** When the data a tool needs could not be loaded (the stdio binary loads it after connecting). */
export const notReady = () => new OrgsimError("BACKEND_UNAVAILABLE", "The service could not load its data; see the server's log (stderr)");

/** When loading takes longer than a tool call should wait (the first start embeds the sample organizations). */
export const stillLoading = () =>
  new OrgsimError(
    "BACKEND_UNAVAILABLE",
    "orgsim is still loading its data (a first start embeds the sample organizations, about a minute); call again shortly",
    {
      retry: true,
    },
  );

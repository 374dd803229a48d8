/** The orgsim MCP server: one tool per operation, over the same core services as REST and tRPC. */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { API_VERSION, openPrincipal, type Principal, type Services } from "@orgsim/core";
import type { ToolRuntime } from "./tool";
import { registerCollectionTools } from "./tools/collections";
import { registerExportTools } from "./tools/export";
import { registerItemTools } from "./tools/items";
import { registerOrganizationTools } from "./tools/organizations";
import { registerSearchTools } from "./tools/search";

export interface OrgsimMcpServerOptions {
  services: Services;
  /** Who is calling: collections are scoped to its tenant, tools need its scopes. Default: the open server's local user (all scopes). */
  principal?: Principal;
  /**
   * Resolves when the data is loaded; tool calls wait for it (the stdio binary answers
   * `initialize` at once and loads the sample data meanwhile). Default: ready now.
   */
  ready?: Promise<unknown>;
  /** How long a tool call waits for `ready` before answering BACKEND_UNAVAILABLE. Default: 30 s. */
  readyTimeoutMs?: number;
  /** Where unexpected tool failures are logged. Default: stderr (stdout may carry the protocol). */
  log?: (line: string) => void;
  /** The HTTP server's address (`http://host:port`) when MCP is served beside REST, for links to REST (export_collection). Default: none (stdio). */
  restBaseUrl?: string | null;
}

/** Every tool, in the order they are listed. */
export const TOOL_NAMES = [
  "search_organizations_by_description",
  "find_similar_organizations",
  "search_organizations_by_examples",
  "search_organizations_by_customer_base",
  "find_organizations",
  "get_organization",
  "list_categories",
  "create_collection",
  "list_collections",
  "get_collection",
  "list_collection_items",
  "add_collection_item",
  "bulk_add_collection_items",
  "update_collection_item",
  "delete_collection_item",
  "export_collection",
] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export const SERVER_INSTRUCTIONS = [
  "orgsim finds organizations similar to a business description (search_organizations_by_description), to a known organization (find_similar_organizations, by id; find_organizations turns a name or website into that id), to several examples and counter-examples (search_organizations_by_examples) ",
  "or to a description of a customer base (search_organizations_by_customer_base), with filters on location, size, age, category, funding stage and funding date; ",
  "and keeps collections of what you find. Typical flow: list_categories if you will filter by business type; search; get_organization for a candidate's whole record; ",
  'create_collection, then add_collection_item or bulk_add_collection_items with entity_type "organization" and the ids as strings. ',
  'A collection holds one entity type, fixed by its first item; export_collection gives a whole collection (a CSV or NDJSON link, small ones inline). Answers are compact and paged (limit ≤ 50, cursor = meta.next_cursor); detail="full" gives complete records. ',
  "Errors come back as tool results whose text starts with the error code (VALIDATION_FAILED names the parameter).",
].join("");

export function createOrgsimMcpServer(options: OrgsimMcpServerOptions): McpServer {
  const server = new McpServer(
    { name: "orgsim", title: "orgsim: similar organizations and collections", version: API_VERSION },
    { instructions: SERVER_INSTRUCTIONS },
  );
  const runtime: ToolRuntime = {
    services: options.services,
    principal: options.principal ?? openPrincipal(),
    ready: options.ready ?? Promise.resolve(),
    readyTimeoutMs: options.readyTimeoutMs ?? 30_000,
    log: options.log ?? ((line) => process.stderr.write(`${line}\n`)),
    restBaseUrl: options.restBaseUrl ?? null,
  };
  registerSearchTools(server, runtime);
  registerOrganizationTools(server, runtime);
  registerCollectionTools(server, runtime);
  registerItemTools(server, runtime);
  registerExportTools(server, runtime);
  return server;
}

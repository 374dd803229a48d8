/**
 * How every orgsim tool is registered: one input schema (a core schema, maybe
 * extended with `detail` and the agent `limit`), one output schema, truthful
 * annotations, and a handler that answers `structuredContent` plus a text summary,
 * or a contract error.
 *
 * Validation: the SDK would validate arguments against `inputSchema` itself and
 * answer bad input with its own text ("Input validation error: …"), without the
 * contract's VALIDATION_FAILED code. So the SDK is handed an object schema that
 * accepts any arguments but whose JSON Schema (through zod metadata, which zod
 * copies into the JSON Schema it generates) is the JSON Schema of the real input
 * schema; the handler then parses with the real schema. Clients see the exact
 * input schema; bad input becomes `isError: true` with `VALIDATION_FAILED` and the
 * parameter named, like on REST.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { assertScope, type Principal, type Scope, type Services } from "@orgsim/core";
import { z } from "zod";
import { errorResult, notReady, stillLoading } from "./errors";

/** Where a tool's listing carries the scope it needs. */
export const SCOPE_META_KEY = "orgsim/scope";

/** What the tools of one server share. */
export interface ToolRuntime {
  services: Services;
  /** Who is calling: collections are scoped to `principal.tenant`; each tool needs its scope. */
  principal: Principal;
  /** Tools wait for it before running (data still loading); a rejection answers BACKEND_UNAVAILABLE. */
  ready: Promise<unknown>;
  /** How long a tool call waits for `ready` before answering BACKEND_UNAVAILABLE ("still loading"). */
  readyTimeoutMs: number;
  log: (line: string) => void;
  /** Where the REST API answers (`http://host:port`, no /v1), when the MCP server is reached over HTTP; null over stdio. */
  restBaseUrl: string | null;
}

export interface ToolReply<Structured> {
  structured: Structured;
  /** A short summary for the model; for full records, their JSON too (see README "Answers"). */
  text: string;
}

/** The annotations every tool states; `openWorldHint` is false for all (they touch only orgsim's own data). */
type Hints = Required<Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint">>;

export const READ_ONLY: Hints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };

export interface ToolDefinition<Input extends z.ZodObject, Output extends z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: Input;
  output: Output;
  hints: Hints;
  /** The API-key scope a caller needs (the same as the matching REST operation); null: any caller. */
  scope: Scope | null;
  run(input: z.output<Input>, runtime: ToolRuntime): Promise<ToolReply<z.input<Output>>>;
}

/** Identity, for type inference: tools are defined once (module level) and registered on every server. */
export const defineTool = <Input extends z.ZodObject, Output extends z.ZodObject>(tool: ToolDefinition<Input, Output>) => tool;

/** Any tool: a list holds tools of different input and output types. */
export type AnyToolDefinition = ToolDefinition<any, any>;

const advertised = new WeakMap<z.ZodObject, z.ZodObject>();

/** The JSON Schema of `input` as clients should see it, carried by a schema that accepts anything (computed once per schema). */
export function advertisedInputSchema(input: z.ZodObject): z.ZodObject {
  let schema = advertised.get(input);
  if (!schema) {
    const { $schema: _, ...jsonSchema } = z.toJSONSchema(input, { io: "input", target: "draft-07" });
    schema = z.looseObject({}).meta(jsonSchema);
    advertised.set(input, schema);
  }
  return schema;
}

/** MCP wants `type: "object"` at the root of both schemas; a core schema with a `.meta({ id })` would be a bare `$ref` there. */
function assertObjectRoot(tool: AnyToolDefinition) {
  for (const [io, schema] of [
    ["input", tool.input],
    ["output", tool.output],
  ] as const) {
    if (z.globalRegistry.get(schema)?.id)
      throw new Error(`${tool.name}: the ${io} schema has a registry id; pass a copy (.extend({})) so its root is an object`);
  }
}

async function whenReady(runtime: ToolRuntime): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(stillLoading()), runtime.readyTimeoutMs);
  });
  try {
    await Promise.race([
      runtime.ready.catch(() => {
        throw notReady();
      }),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerTools(server: McpServer, runtime: ToolRuntime, tools: readonly AnyToolDefinition[]): void {
  for (const tool of tools) registerTool(server, runtime, tool);
}

function registerTool(server: McpServer, runtime: ToolRuntime, tool: AnyToolDefinition): void {
  assertObjectRoot(tool);
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: advertisedInputSchema(tool.input),
      outputSchema: tool.output,
      annotations: { title: tool.title, ...tool.hints, openWorldHint: false },
      // The API-key scope the tool needs, so a client can tell before calling.
      _meta: { [SCOPE_META_KEY]: tool.scope },
    },
    async (args, extra): Promise<CallToolResult> => {
      try {
        if (tool.scope) assertScope(runtime.principal, tool.scope);
        await whenReady(runtime);
        const input = tool.input.parse(args);
        const reply = await tool.run(input, runtime);
        return { structuredContent: reply.structured as Record<string, unknown>, content: [{ type: "text", text: reply.text }] };
      } catch (error) {
        return errorResult(error, String(extra.requestId), runtime.log);
      }
    },
  );
}

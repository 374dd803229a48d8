/** Collections: create, list, get. Inputs and records are the core's (packages/core/src/schemas/collections.ts). */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Collection, CollectionPage, CollectionRef, CreateCollectionInput, ListCollectionsInput, pageBody } from "@orgsim/core";
import { z } from "zod";
import { collectionLine, moreLine } from "../format";
import { agentLimit, cursorDescription } from "../params";
import { defineTool, READ_ONLY, registerTools, type ToolRuntime } from "../tool";

/** The rule every collection tool is about, told once. */
export const ONE_TYPE_RULE =
  "A collection holds exactly one entity type — organization, product, person, address or funding_round — fixed when it is created with entity_type " +
  "or else by its first item, for the collection's whole life (even when emptied). An item of another type is refused with ENTITY_TYPE_MISMATCH naming both types: " +
  "put it in another collection.";

/**
 * The core's collection id, as every tool takes it: named `collection_id` (a bare `id` beside
 * item_id, entity_id and organization ids left agents guessing which id it was), same validation.
 */
export const collectionIdParam = () => CollectionRef.shape.id.meta({ description: "The collection's id (col_…), from create_collection or list_collections" });

export const collectionTools = [
  defineTool({
    name: "create_collection",
    title: "Create a collection",
    description:
      "Use it to start a new named list (a shortlist, a saved set) of organizations, people, products, addresses or funding rounds to come back to. " +
      "Returns the new collection: pass its id as collection_id to add_collection_item or bulk_add_collection_items. " +
      `Set entity_type now to fix the type, or leave it out and the first item fixes it. ${ONE_TYPE_RULE} ` +
      "Each call creates a new collection (check list_collections first to reuse one).",
    input: CreateCollectionInput,
    output: z.object({ data: Collection }),
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    scope: "collections:write",
    async run(input, { services, principal }) {
      const collection = await services.collections.create(principal.tenant, input);
      return { structured: { data: collection }, text: `Created collection ${collection.id}:\n${collectionLine(collection)}` };
    },
  }),

  defineTool({
    name: "list_collections",
    title: "List collections",
    description:
      "Use it to see which collections (saved lists, shortlists) you have, e.g. to find one's id before adding to it or creating another. " +
      "Returns your collections in the order they were created, with their entity type (null until the first item) and item count.",
    input: ListCollectionsInput.safeExtend({ limit: agentLimit(), cursor: ListCollectionsInput.shape.cursor.meta({ description: cursorDescription }) }),
    output: CollectionPage.extend({}),
    hints: READ_ONLY,
    scope: "collections:read",
    async run(input, { services, principal }) {
      const page = await services.collections.list(principal.tenant, input);
      const lines = [
        page.data.length === 0 && !input.cursor ? "No collections yet: create one with create_collection." : `${page.data.length} collections:`,
        ...page.data.map(collectionLine),
        moreLine(page.next_cursor, "collections"),
      ];
      return { structured: pageBody(page), text: lines.join("\n") };
    },
  }),

  defineTool({
    name: "get_collection",
    title: "Get a collection",
    description:
      "Use it when you have a collection_id and want that collection's details: how many items it holds and of which entity type. " +
      "Returns its name, description, entity type (null until the first item) and item count; list_collection_items gives the items themselves. Unknown ids answer NOT_FOUND.",
    input: CollectionRef.omit({ id: true }).safeExtend({ collection_id: collectionIdParam() }),
    output: z.object({ data: Collection }),
    hints: READ_ONLY,
    scope: "collections:read",
    async run({ collection_id }, { services, principal }) {
      const collection = await services.collections.get(principal.tenant, collection_id);
      return { structured: { data: collection }, text: collectionLine(collection) };
    },
  }),
];

export function registerCollectionTools(server: McpServer, runtime: ToolRuntime): void {
  registerTools(server, runtime, collectionTools);
}

/** Collection items: list, add, bulk add, update, delete. Inputs and records are the core's. */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  BulkAddItemsInput,
  BulkAddResult,
  CollectionItem,
  type CollectionItem as CollectionItemType,
  ItemPage,
  ItemRef,
  ListItemsInput,
  NewItem,
  UpdateItemInput,
} from "@orgsim/core";
import { z } from "zod";
import { CompactItem, compactItem, itemLine, jsonBlock, moreLine } from "../format";
import { AGENT_MAX_PAGE_SIZE, agentLimit, cursorDescription, Detail, detailParam } from "../params";
import { defineTool, READ_ONLY, registerTools, type ToolRuntime } from "../tool";
import { collectionIdParam, ONE_TYPE_RULE } from "./collections";

const itemIdParam = () => ItemRef.shape.item_id.meta({ description: "The item's id (itm_…), from add_collection_item or list_collection_items" });

/** A bulk answer lists at most this many items (the counts cover all of them). */
const BULK_ITEMS_SHOWN = AGENT_MAX_PAGE_SIZE;

const ENTITY_HELP =
  'entity_id is the entity\'s identifier as a string; for an organization, its orgsim id (e.g. "4242"), which must exist. ' +
  "entity is an optional snapshot checked against the type: organization {name, domain}; person {full_name, title, email, linkedin_url, organization_id}; " +
  "product {name, description, url, category, organization_id}; address {address_line, city, subdivision_code, postal_code, country_code}; " +
  "funding_round {organization_id, stage, announced_on, amount_usd, investors}. notes (up to 10,000 characters) and tags (up to 50) are yours.";

const itemsText = (items: CollectionItemType[], detail: Detail) => (detail === "full" && items.length > 0 ? [jsonBlock("Full records", items)] : []);

export const itemTools = [
  defineTool({
    name: "list_collection_items",
    title: "List a collection's items",
    description:
      "Use it to see what is saved in a collection (a shortlist, a saved list): the organizations or other entities in it, given its collection_id. " +
      "Returns its items, oldest first: compact by default (item id, entity type and id, a label from the snapshot, tags, notes cut to one line); " +
      `detail="full" adds the entity snapshot, whole notes and timestamps. limit is 1–${AGENT_MAX_PAGE_SIZE} (default 10); call again with cursor = meta.next_cursor for more.`,
    input: ListItemsInput.omit({ id: true }).safeExtend({
      collection_id: collectionIdParam(),
      limit: agentLimit(),
      cursor: ListItemsInput.shape.cursor.meta({ description: cursorDescription }),
      detail: detailParam("compact"),
    }),
    output: z.object({
      data: z.array(z.union([CompactItem, CollectionItem])),
      meta: ItemPage.shape.meta.extend({ detail: Detail }),
    }),
    hints: READ_ONLY,
    scope: "collections:read",
    async run({ collection_id: id, detail, ...page }, { services, principal }) {
      const result = await services.collections.listItems(principal.tenant, id, page);
      const lines = [
        result.data.length === 0 && !page.cursor ? `Collection ${id} is empty.` : `${result.data.length} items of ${id}:`,
        ...result.data.map(itemLine),
        moreLine(result.next_cursor, "items"),
        ...itemsText(result.data, detail),
      ];
      return {
        structured: { data: detail === "full" ? result.data : result.data.map(compactItem), meta: { next_cursor: result.next_cursor, detail } },
        text: lines.join("\n"),
      };
    },
  }),

  defineTool({
    name: "add_collection_item",
    title: "Add an item to a collection",
    description:
      'Use it to save one organization (or another entity) to a collection such as a shortlist, given its collection_id (entity_type "organization", entity_id its id as a string). ' +
      "Returns the item; adding the same entity again returns the existing item (meta.created false) and changes nothing, so retrying is safe. " +
      `${ONE_TYPE_RULE} ` +
      `${ENTITY_HELP} For several entities at once use bulk_add_collection_items.`,
    // The core's AddItemInput is NewItem with the collection's id: here that id is collection_id.
    input: NewItem.safeExtend({ collection_id: collectionIdParam() }),
    output: z.object({
      data: CollectionItem,
      meta: z.object({ created: z.boolean().meta({ description: "false when the entity was already in the collection (the existing item is returned)" }) }),
    }),
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    scope: "collections:write",
    async run({ collection_id: id, ...item }, { services, principal }) {
      const added = await services.collections.add(principal.tenant, id, item);
      const head = added.created ? `Added to ${id}:` : `Already in ${id} (nothing changed):`;
      return { structured: { data: added.item, meta: { created: added.created } }, text: `${head}\n${itemLine(added.item)}` };
    },
  }),

  defineTool({
    name: "bulk_add_collection_items",
    title: "Add several items to a collection",
    description:
      "Use it to save many organizations or other entities (1–1,000), such as a page of search results, into a collection in one call, given its collection_id. " +
      `Returns how many were added and how many were already there (meta.created, meta.existing), with up to ${BULK_ITEMS_SHOWN} of the items in brief. ` +
      "All or nothing: one invalid item, or an item whose type differs from the collection's or from the rest of the batch, " +
      "writes nothing, and the error's details.failing_indexes lists the items to fix (0-based). Entities already in the collection are kept as they are. " +
      `${ONE_TYPE_RULE} ${ENTITY_HELP} meta.not_shown counts the items not listed (see list_collection_items).`,
    input: BulkAddItemsInput.omit({ id: true }).safeExtend({ collection_id: collectionIdParam() }),
    output: z.object({
      data: z.array(CompactItem),
      meta: BulkAddResult.shape.meta.extend({ not_shown: z.number().int().meta({ description: "Items added or found but not listed in data" }) }),
    }),
    hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    scope: "collections:write",
    async run({ collection_id: id, items }, { services, principal }) {
      const added = await services.collections.addMany(principal.tenant, id, items);
      const created = added.filter((a) => a.created).length;
      const shown = added.slice(0, BULK_ITEMS_SHOWN).map((a) => a.item);
      const meta = { created, existing: added.length - created, not_shown: added.length - shown.length };
      const lines = [
        `${id}: ${created} added, ${meta.existing} already there.`,
        ...shown.map(itemLine),
        ...(meta.not_shown > 0 ? [`…and ${meta.not_shown} more (list_collection_items shows them).`] : []),
      ];
      return { structured: { data: shown.map(compactItem), meta }, text: lines.join("\n") };
    },
  }),

  defineTool({
    name: "update_collection_item",
    title: "Update a collection item",
    description:
      "Use it to annotate an item already saved in a collection: change its notes or tags (labels such as a lead's status), or its entity snapshot. " +
      "Returns the updated item; fields you leave out stay as they are (null clears notes or the snapshot). " +
      "entity_type and entity_id cannot change: to change the entity, delete the item and add another. The snapshot is checked against the item's type.",
    input: UpdateItemInput.omit({ id: true }).safeExtend({ collection_id: collectionIdParam(), item_id: itemIdParam() }),
    output: z.object({ data: CollectionItem }),
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    scope: "collections:write",
    async run({ collection_id: id, item_id, ...patch }, { services, principal }) {
      const item = await services.collections.updateItem(principal.tenant, id, item_id, patch);
      return { structured: { data: item }, text: `Updated in ${id}:\n${itemLine(item)}` };
    },
  }),

  defineTool({
    name: "delete_collection_item",
    title: "Remove an item from a collection",
    description:
      "Use it to remove one saved organization or other item from a collection such as a shortlist (the entity itself is not touched). " +
      "Returns the ids of the collection and the removed item; removing an item that is not there answers NOT_FOUND. The collection keeps its entity type even when emptied.",
    input: ItemRef.omit({ id: true }).safeExtend({ collection_id: collectionIdParam(), item_id: itemIdParam() }),
    output: z.object({
      data: z.object({ collection_id: CollectionItem.shape.collection_id, item_id: CollectionItem.shape.id, deleted: z.literal(true) }),
    }),
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    scope: "collections:write",
    async run({ collection_id: id, item_id }, { services, principal }) {
      await services.collections.deleteItem(principal.tenant, id, item_id);
      return { structured: { data: { collection_id: id, item_id, deleted: true as const } }, text: `Removed ${item_id} from ${id}.` };
    },
  }),
];

export function registerItemTools(server: McpServer, runtime: ToolRuntime): void {
  registerTools(server, runtime, itemTools);
}

/** Collections of one entity type and their items. */
import {
  AddItemInput,
  BulkAddItemsInput,
  BulkAddResult,
  Collection,
  CollectionItem,
  CollectionPage,
  CollectionRef,
  CreateCollectionInput,
  ExportPage,
  ExportPageInput,
  ItemPage,
  ItemRef,
  ListCollectionsInput,
  ListItemsInput,
  pageBody,
  UpdateCollectionInput,
  UpdateItemInput,
} from "@orgsim/core";
import { z } from "zod";
import { type Meta, router, scoped } from "../trpc";

const tags = ["collections"];
/** What an item write can answer beyond every operation's errors (the document adds those: see openapi.ts). */
const TYPED_WRITE_ERRORS = {
  400: "invalid input (`details.issues`; for bulk, `details.failing_indexes`)",
  409:
    "ENTITY_TYPE_MISMATCH: the item's type differs from the collection's (or, in a batch, from the other items'); " +
    "CONFLICT: the collection already holds 100,000 items, or is being changed by many requests at once (retry)",
};

/** Adding items: 201 when any is created, 200 when all were already there; the 409s of TYPED_WRITE_ERRORS. */
const ITEM_ADD = { successStatuses: [201, 200], conflicts: ["ENTITY_TYPE_MISMATCH", "CONFLICT"] } satisfies Meta;

export const collectionsRouter = router({
  create: scoped("collections:write")
    .meta({ openapi: { method: "POST", path: "/collections", tags, summary: "Create a collection", successDescription: "Created" }, successStatuses: [201] })
    .input(CreateCollectionInput)
    .output(Collection)
    .mutation(async ({ ctx, input }) => {
      ctx.response.status = 201;
      return ctx.services.collections.create(ctx.tenant, input);
    }),

  list: scoped("collections:read")
    .meta({ openapi: { method: "GET", path: "/collections", tags, summary: "List collections" } })
    .input(ListCollectionsInput)
    .output(CollectionPage)
    .query(async ({ ctx, input }) => {
      return pageBody(await ctx.services.collections.list(ctx.tenant, input));
    }),

  get: scoped("collections:read")
    .meta({ openapi: { method: "GET", path: "/collections/{id}", tags, summary: "Get a collection" } })
    .input(CollectionRef)
    .output(Collection)
    .query(({ ctx, input }) => ctx.services.collections.get(ctx.tenant, input.id)),

  update: scoped("collections:write")
    .meta({ openapi: { method: "PATCH", path: "/collections/{id}", tags, summary: "Rename a collection or change its description" } })
    .input(UpdateCollectionInput)
    .output(Collection)
    .mutation(({ ctx, input }) => {
      const { id, ...patch } = input;
      return ctx.services.collections.update(ctx.tenant, id, patch);
    }),

  delete: scoped("collections:write")
    .meta({
      openapi: { method: "DELETE", path: "/collections/{id}", tags, summary: "Delete a collection and its items", successDescription: "Deleted (no content)" },
      successStatuses: [204],
    })
    .input(CollectionRef)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.services.collections.delete(ctx.tenant, input.id);
      ctx.response.status = 204;
    }),

  /**
   * The export for TypeScript apps: a typed page of exported items (organization items joined with
   * the organization as it is now), resumed with `cursor`. No REST operation: REST streams the whole
   * file at GET /collections/{id}/export (apps/server/src/http/export.ts; documented in openapi.ts).
   */
  export: scoped("collections:read")
    .input(ExportPageInput)
    .output(ExportPage)
    .query(async ({ ctx, input }) => {
      const { id, ...page } = input;
      return pageBody(await ctx.services.exports.page(ctx.tenant, id, page));
    }),

  items: router({
    add: scoped("collections:write")
      .meta({
        openapi: {
          method: "POST",
          path: "/collections/{id}/items",
          tags,
          summary: "Add an item",
          description:
            "201 with the new item; the same entity again answers 200 with the existing item (safe to retry). " +
            "An item whose entity_type differs from the collection's is refused with 409 ENTITY_TYPE_MISMATCH.",
          successDescription: "The item (201 when created, 200 when it was already there)",
          errorResponses: TYPED_WRITE_ERRORS,
        },
        ...ITEM_ADD,
      })
      .input(AddItemInput)
      .output(CollectionItem)
      .mutation(async ({ ctx, input }) => {
        const { id, ...item } = input;
        const added = await ctx.services.collections.add(ctx.tenant, id, item);
        ctx.response.status = added.created ? 201 : 200;
        return added.item;
      }),

    bulkAdd: scoped("collections:write")
      .meta({
        openapi: {
          method: "POST",
          path: "/collections/{id}/items/bulk",
          tags,
          summary: "Add 1–1,000 items, all or nothing",
          description: "One invalid item, or a type that differs from the collection's or the batch's, writes nothing; the error lists `failing_indexes`.",
          successDescription: "The items (201 when any was created, 200 when all were already there)",
          errorResponses: TYPED_WRITE_ERRORS,
        },
        ...ITEM_ADD,
      })
      .input(BulkAddItemsInput)
      .output(BulkAddResult)
      .mutation(async ({ ctx, input }) => {
        const added = await ctx.services.collections.addMany(ctx.tenant, input.id, input.items);
        const created = added.filter((a) => a.created).length;
        ctx.response.status = created > 0 ? 201 : 200;
        return { data: added.map((a) => a.item), meta: { created, existing: added.length - created } };
      }),

    list: scoped("collections:read")
      .meta({ openapi: { method: "GET", path: "/collections/{id}/items", tags, summary: "List items" } })
      .input(ListItemsInput)
      .output(ItemPage)
      .query(async ({ ctx, input }) => {
        const { id, ...page } = input;
        return pageBody(await ctx.services.collections.listItems(ctx.tenant, id, page));
      }),

    get: scoped("collections:read")
      .meta({ openapi: { method: "GET", path: "/collections/{id}/items/{item_id}", tags, summary: "Get an item" } })
      .input(ItemRef)
      .output(CollectionItem)
      .query(({ ctx, input }) => ctx.services.collections.getItem(ctx.tenant, input.id, input.item_id)),

    update: scoped("collections:write")
      .meta({
        openapi: {
          method: "PATCH",
          path: "/collections/{id}/items/{item_id}",
          tags,
          summary: "Update an item's notes, tags or entity snapshot",
          description: "`entity_type` and `entity_id` cannot change.",
          errorResponses: { 409: "CONFLICT: the item is being changed by many requests at once (retry)" },
        },
        conflicts: ["CONFLICT"],
      })
      .input(UpdateItemInput)
      .output(CollectionItem)
      .mutation(({ ctx, input }) => {
        const { id, item_id, ...patch } = input;
        return ctx.services.collections.updateItem(ctx.tenant, id, item_id, patch);
      }),

    delete: scoped("collections:write")
      .meta({
        openapi: { method: "DELETE", path: "/collections/{id}/items/{item_id}", tags, summary: "Remove an item", successDescription: "Deleted (no content)" },
        successStatuses: [204],
      })
      .input(ItemRef)
      .output(z.void())
      .mutation(async ({ ctx, input }) => {
        await ctx.services.collections.deleteItem(ctx.tenant, input.id, input.item_id);
        ctx.response.status = 204;
      }),
  }),
});

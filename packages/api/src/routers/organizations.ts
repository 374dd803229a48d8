/** Organization records: read, upsert (one or up to 1,000), delete; and the category taxonomy. */
import {
  CATEGORIES,
  CategoryList,
  FindOrganizationsInput,
  MAX_BULK_ORGANIZATIONS,
  Organization,
  OrganizationPage,
  OrganizationReplaceInput,
  OrganizationWithId,
  organizationId,
} from "@orgsim/core";
import { z } from "zod";
import { procedure, router, scoped } from "../trpc";

const OrganizationRef = z.strictObject({ organization_id: organizationId() });
/** Writes embed with the configured model; a store made with another model refuses them. */
const MODEL_CONFLICT = { 409: "CONFLICT: the stored vectors were made by another model (or dimension) than the configured one" };

export const organizationsRouter = router({
  find: scoped("search:read")
    .meta({
      openapi: {
        method: "GET",
        path: "/organizations",
        tags: ["organizations"],
        summary: "Find organizations by name (type-ahead) or domain",
        description:
          "`domain` matches the normalized domain exactly (scheme, `www.`, port and path ignored). `name` matches by words and word prefixes, best first: " +
          "names that start with the words, then names holding every word, then names where every word starts a word; ties by name, then id. Both given: both must match.",
      },
    })
    .input(FindOrganizationsInput)
    .output(OrganizationPage)
    .query(({ ctx, input }) => ctx.services.organizations.find(input)),

  get: scoped("search:read")
    .meta({ openapi: { method: "GET", path: "/organizations/{organization_id}", tags: ["organizations"], summary: "Get an organization" } })
    .input(OrganizationRef)
    .output(Organization)
    .query(({ ctx, input }) => ctx.services.organizations.get(input.organization_id)),

  upsert: scoped("organizations:write")
    .meta({
      openapi: {
        method: "PUT",
        path: "/organizations/{organization_id}",
        tags: ["organizations"],
        summary: "Create or replace an organization",
        description:
          "Replaces the whole record and recomputes both vectors with the configured model. Accepts what GET returns: `id` (when sent, equal to the path's), derived fields (a place's `country` and `world_region` are ignored and recomputed).",
        errorResponses: MODEL_CONFLICT,
      },
      conflicts: ["CONFLICT"],
    })
    .input(OrganizationReplaceInput)
    .output(Organization)
    .mutation(({ ctx, input }) => {
      const { organization_id, id: _sameId, ...fields } = input;
      return ctx.services.organizations.upsert({ ...fields, id: organization_id });
    }),

  bulkUpsert: scoped("organizations:write")
    .meta({
      openapi: {
        method: "POST",
        path: "/organizations/bulk",
        tags: ["organizations"],
        summary: `Create or replace up to ${MAX_BULK_ORGANIZATIONS} organizations`,
        description: "All or nothing: one invalid organization writes nothing and the error lists `failing_indexes`.",
        errorResponses: MODEL_CONFLICT,
      },
      conflicts: ["CONFLICT"],
    })
    .input(z.strictObject({ organizations: z.array(OrganizationWithId).min(1).max(MAX_BULK_ORGANIZATIONS) }))
    .output(z.object({ data: z.array(Organization), meta: z.object({ upserted: z.number().int() }) }))
    .mutation(async ({ ctx, input }) => {
      const data = await ctx.services.organizations.upsertMany(input.organizations);
      return { data, meta: { upserted: data.length } };
    }),

  delete: scoped("organizations:write")
    .meta({
      openapi: {
        method: "DELETE",
        path: "/organizations/{organization_id}",
        tags: ["organizations"],
        summary: "Delete an organization",
        successDescription: "Deleted (no content)",
      },
      successStatuses: [204],
    })
    .input(OrganizationRef)
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await ctx.services.organizations.delete(input.organization_id);
      ctx.response.status = 204;
    }),
});

export const categoriesRouter = router({
  list: procedure
    .meta({ openapi: { method: "GET", path: "/categories", tags: ["reference"], summary: "The product-category taxonomy used by `categories` filters" } })
    .input(z.strictObject({}).optional())
    .output(CategoryList)
    .query(() => ({ data: [...CATEGORIES] })),
});

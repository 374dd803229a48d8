/** Organizations by name or domain, one organization by id, and the category taxonomy the `categories` filter uses. */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CATEGORIES, CategoryList, FindOrganizationsInput, Organization, OrganizationPage, organizationId } from "@orgsim/core";
import { z } from "zod";
import { CompactOrganization, categoryLine, compactOrganization, FullOrganization, jsonBlock, moreLine, organizationLines } from "../format";
import { cursorDescription, Detail, detailParam, FULL_MAX_PAGE_SIZE, searchLimit } from "../params";
import { defineTool, READ_ONLY, registerTools, type ToolRuntime } from "../tool";

/** The same input as REST `GET /organizations/{organization_id}` (packages/api/src/routers/organizations.ts), plus `detail`. */
const GetOrganizationInput = z.strictObject({ organization_id: organizationId(), detail: detailParam("full") });

/** The same input as REST `GET /organizations`, with the agent page size and `detail`. */
const FindOrganizationsToolInput = FindOrganizationsInput.safeExtend({
  limit: searchLimit(),
  cursor: FindOrganizationsInput.shape.cursor.meta({ description: cursorDescription }),
  detail: detailParam("compact"),
});

export const organizationTools = [
  defineTool({
    name: "find_organizations",
    title: "Find organizations by name or domain",
    description:
      'Use it first when the user names a company or its website ("companies like Stripe"): it finds the orgsim id that the similarity search and get_organization take. ' +
      "Returns matching organizations best first, compact by default: by `domain` (exact; https://, www. and paths are ignored) and/or by `name` " +
      "(whole words or the beginnings of words, so a partial name works; names that start with it come first).",
    input: FindOrganizationsToolInput,
    output: z.object({
      data: z.array(z.union([CompactOrganization, FullOrganization])),
      meta: OrganizationPage.shape.meta.extend({ detail: Detail }),
    }),
    hints: READ_ONLY,
    scope: "search:read",
    async run({ detail, ...input }, { services }) {
      const page = await services.organizations.find(detail === "full" ? { ...input, limit: Math.min(input.limit, FULL_MAX_PAGE_SIZE) } : input);
      const data = detail === "full" ? page.data : page.data.map(compactOrganization);
      const lines =
        page.data.length === 0
          ? ["No organization has that name or domain."]
          : [`${page.data.length} organizations, best match first:`, ...page.data.map((o) => organizationLines(o))];
      if (detail === "full") lines.push(jsonBlock("Full records", page.data));
      lines.push(moreLine(page.meta.next_cursor, "matches"));
      return { structured: { data, meta: { ...page.meta, detail } }, text: lines.join("\n") };
    },
  }),

  defineTool({
    name: "get_organization",
    title: "Get an organization",
    description:
      "Use it to read one organization's full profile (headcount, funding, offices, contacts) once you know its orgsim id (the `id` of a search result). " +
      "Returns its complete record by default: description, categories, customer description, metrics (employees, founding, funding and last round), " +
      'headquarters and offices, contact and social links; detail="compact" gives the short form. ' +
      "Unknown ids answer NOT_FOUND.",
    input: GetOrganizationInput,
    output: z.object({ data: z.union([Organization, CompactOrganization]) }),
    hints: READ_ONLY,
    scope: "search:read",
    async run({ organization_id, detail }, { services }) {
      const organization = await services.organizations.get(organization_id);
      const lines = [organizationLines(organization)];
      if (detail === "full") lines.push(jsonBlock("Full record", organization));
      return { structured: { data: detail === "full" ? organization : compactOrganization(organization) }, text: lines.join("\n") };
    },
  }),

  defineTool({
    name: "list_categories",
    title: "List business categories",
    description:
      "Use it once before filtering searches by business type or category. " +
      "Returns the product-category taxonomy (slug, name, sector): the `categories` filter of the search tools takes these slugs, and organizations' `categories` use them. " +
      "It takes no arguments.",
    input: z.strictObject({}),
    output: CategoryList.extend({}),
    hints: READ_ONLY,
    scope: null,
    async run() {
      const data = [...CATEGORIES];
      return { structured: { data }, text: [`${data.length} categories (slug: name (sector)):`, ...data.map(categoryLine)].join("\n") };
    },
  }),
];

export function registerOrganizationTools(server: McpServer, runtime: ToolRuntime): void {
  registerTools(server, runtime, organizationTools);
}

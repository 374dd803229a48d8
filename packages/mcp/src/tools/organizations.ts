/** One organization by id, and the category taxonomy the `categories` filter uses. */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CATEGORIES, CategoryList, Organization, organizationId } from "@orgsim/core";
import { z } from "zod";
import { CompactOrganization, categoryLine, compactOrganization, jsonBlock, organizationLines } from "../format";
import { detailParam } from "../params";
import { defineTool, READ_ONLY, registerTools, type ToolRuntime } from "../tool";

/** The same input as REST `GET /organizations/{organization_id}` (packages/api/src/routers/organizations.ts), plus `detail`. */
const GetOrganizationInput = z.strictObject({ organization_id: organizationId(), detail: detailParam("full") });

export const organizationTools = [
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

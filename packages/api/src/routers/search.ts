/** The three search operations of the contract. */
import { SearchResponse, SimilarCustomersInput, SimilarToDescriptionInput, SimilarToOrganizationInput } from "@orgsim/core";
import { router, scoped } from "../trpc";

const FILTERS_HELP =
  "Filters narrow the candidates before ranking (a filtered query returns `limit` results whenever that many match). " +
  "Values of one parameter are alternatives; different parameters must all hold; `countries` and `regions` together form one location alternative.";

/** The query is embedded with the configured model; a store made with another one cannot be searched with it. */
const conflict = "CONFLICT: the stored vectors have another dimension than the configured model's";
const notYourCollection = "a collection of `exclude_collection_ids` does not exist or is another tenant's (`details.id`)";
const errorResponses = { 409: conflict, 404: notYourCollection };

export const searchRouter = router({
  similarToOrganization: scoped("search:read")
    .meta({
      openapi: {
        method: "GET",
        path: "/search/organizations/{organization_id}/similar",
        tags: ["search"],
        summary: "Organizations similar to a known organization",
        description: `Ranks organizations by the cosine similarity of their business profiles to this organization's. The organization itself is never in its results. ${FILTERS_HELP}`,
        errorResponses: { 409: conflict, 404: `the organization does not exist, or ${notYourCollection}` },
      },
      conflicts: ["CONFLICT"],
    })
    .input(SimilarToOrganizationInput)
    .output(SearchResponse)
    .query(({ ctx, input }) => ctx.services.search.similarToOrganization(input, ctx)),

  similarToDescription: scoped("search:read")
    .meta({
      openapi: {
        method: "GET",
        path: "/search/organizations/similar",
        tags: ["search"],
        summary: "Organizations similar to a business description",
        description: `Embeds the description and ranks organizations by the similarity of their business profiles. ${FILTERS_HELP}`,
        errorResponses,
      },
      conflicts: ["CONFLICT"],
    })
    .input(SimilarToDescriptionInput)
    .output(SearchResponse)
    .query(({ ctx, input }) => ctx.services.search.similarToDescription(input, ctx)),

  similarCustomers: scoped("search:read")
    .meta({
      openapi: {
        method: "GET",
        path: "/search/organizations/similar-customers",
        tags: ["search"],
        summary: "Organizations whose customers match a description of a customer base",
        description: `Embeds the customer description and ranks organizations by their customer-base vectors; organizations without customer text are not candidates. ${FILTERS_HELP}`,
        errorResponses,
      },
      conflicts: ["CONFLICT"],
    })
    .input(SimilarCustomersInput)
    .output(SearchResponse)
    .query(({ ctx, input }) => ctx.services.search.similarCustomers(input, ctx)),
});

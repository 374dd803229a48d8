/** The three search operations of the contract. */
import {
  MAX_SEEDS,
  SearchResponse,
  SeedSearchResponse,
  SimilarCustomersInput,
  SimilarToDescriptionInput,
  SimilarToOrganizationInput,
  SimilarToSeedsInput,
} from "@orgsim/core";
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

  similarToSeeds: scoped("search:read")
    .meta({
      openapi: {
        method: "POST",
        path: "/search/organizations/similar",
        tags: ["search"],
        summary: "Organizations like several examples and unlike counter-examples",
        description:
          `\`like\` (1–${MAX_SEEDS}) and \`unlike\` (0–${MAX_SEEDS}) seeds, each an \`organization_id\`, a \`domain\` or a \`description\`: ` +
          "the query is the mean of the like seeds' vectors moved away from the unlike seeds' (Rocchio), and under hybrid ranking the like seeds' most distinctive words. " +
          "Seed organizations are never in the results. A seed that names no stored organization is listed in `meta.missing_seeds` and the others are used; " +
          `when no like seed is left, 404. ${FILTERS_HELP}`,
        errorResponses: { 409: conflict, 404: `no like seed names a stored organization, or ${notYourCollection}` },
      },
      conflicts: ["CONFLICT"],
    })
    .input(SimilarToSeedsInput)
    .output(SeedSearchResponse)
    .mutation(({ ctx, input }) => ctx.services.search.similarToSeeds(input, ctx)),

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
        description: `Embeds the customer description and ranks organizations by their customer base: by the customer vector where the data states the customers, by it and the profile vector where the customer sentences were extracted from the description; words are matched against whole descriptions. Organizations without customer text have no customer vector and are not candidates, in either ranking; \`ranking=vector\` ranks the customer vectors alone. ${FILTERS_HELP}`,
        errorResponses,
      },
      conflicts: ["CONFLICT"],
    })
    .input(SimilarCustomersInput)
    .output(SearchResponse)
    .query(({ ctx, input }) => ctx.services.search.similarCustomers(input, ctx)),
});

/** The three searches: similar to a known organization, to a business description, to a customer base. */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  SearchResponse,
  type SearchResponse as SearchResponseType,
  SeedSearchResponse,
  SimilarCustomersInput,
  SimilarToDescriptionInput,
  SimilarToOrganizationInput,
  SimilarToSeedsInput,
} from "@orgsim/core";
import { z } from "zod";
import { CompactOrganizationResult, compactResult, FullOrganizationResult, jsonBlock, moreLine, organizationLines } from "../format";
import { AGENT_MAX_PAGE_SIZE, cursorDescription, type Detail, Detail as DetailSchema, detailParam, FULL_MAX_PAGE_SIZE, searchLimit } from "../params";
import { defineTool, READ_ONLY, registerTools, type ToolReply, type ToolRuntime } from "../tool";

/** How filters combine: the same rules as REST and tRPC (packages/api/src/routers/search.ts), told to an agent. */
export const FILTERS_HELP = [
  "Filters narrow the candidates before ranking, so a filtered search still returns `limit` results whenever that many organizations match.",
  "Values of one parameter are alternatives (countries: ['DE','FR'] = Germany or France); different parameters must all hold (countries AND categories AND funding_stages …);",
  "`countries` and `regions` together form one location alternative. Location filters look at the headquarters unless hq_only is false (then any office).",
  "Categories are slugs from list_categories; regions are UN M49 slugs (europe, northern-america, south-eastern-asia, …) or ISO 3166-2 codes (US-CA);",
  "employee_ranges are buckets (1-10 … 10001+), employees_min/max a range on the exact headcount; funding_stages is the stage of the latest round, last_funding_from/to its date (YYYY-MM-DD).",
  "exclude_ids leaves organizations out (e.g. ones already seen), exclude_collection_ids the organizations held by your collections (what you saved); " +
    "min_similarity is a floor on the cosine similarity (-1..1).",
].join(" ");

const PAGING_HELP =
  `Answers are compact by default (id, name, domain, one-line description, categories, HQ city/country, employee range, founding year, last round, score, cosine similarity, rank); ` +
  `detail="full" returns complete records (contact, offices, funding, customer description). ` +
  `explain=true adds to each result why it is there ("why": facets shared with the seed organizations, matched words; full records carry similarity.explanation). ` +
  `Results come best first, in score order: by default (ranking="hybrid") score is the fused relevance of meaning and matching words (0..1); ranking="vector" ranks by meaning alone (score = cosine similarity); ` +
  `limit is 1–${AGENT_MAX_PAGE_SIZE} (default 10; at most ${FULL_MAX_PAGE_SIZE} with detail="full"); to see more, call again with the same arguments and cursor = meta.next_cursor (null when there is no more).`;

const agentOptions = {
  limit: searchLimit(),
  cursor: SimilarToDescriptionInput.shape.cursor.meta({ description: cursorDescription }),
  detail: detailParam("compact"),
};

/** The search input for the service: the page size bounded for full records. */
const page = <T extends { limit: number }>(input: T, detail: Detail): T =>
  detail === "full" ? { ...input, limit: Math.min(input.limit, FULL_MAX_PAGE_SIZE) } : input;

export const SearchToolOutput = z.object({
  data: z
    .array(z.union([CompactOrganizationResult, FullOrganizationResult]))
    .meta({ description: "In rank order (similarity.rank; compact: rank): similarity.score descending, ties by id ascending, in every ranking" }),
  meta: SearchResponse.shape.meta.extend({
    detail: DetailSchema,
    returned: z.number().int().meta({ description: "How many organizations this page holds" }),
  }),
});
type SearchToolOutput = z.input<typeof SearchToolOutput>;

const SeedSearchToolOutput = SearchToolOutput.extend({
  meta: SearchToolOutput.shape.meta.extend({ missing_seeds: SeedSearchResponse.shape.meta.shape.missing_seeds }),
});

function reply(response: SearchResponseType, detail: Detail, what: string): ToolReply<SearchToolOutput> {
  const data = detail === "full" ? response.data : response.data.map(compactResult);
  const meta = { ...response.meta, detail, returned: response.data.length };
  const head =
    response.data.length === 0
      ? `No organizations ${what} match these filters.`
      : `${response.data.length} organizations ${what}, best first (${response.meta.ranking === "hybrid" ? "score = relevance of meaning and matching words, 0..1" : "score = cosine similarity, -1..1"})`;
  // Full records: their JSON is the text (no summary lines repeating it); compact: one summary per organization.
  const lines =
    detail === "full"
      ? [head, moreLine(response.meta.next_cursor, "results"), ...(response.data.length ? [jsonBlock("Full records", response.data)] : [])]
      : [
          response.data.length ? `${head}:` : head,
          ...response.data.map((o) => organizationLines(o, o.similarity)),
          moreLine(response.meta.next_cursor, "results"),
          ...(response.data.length ? ['For complete records pass detail="full", or call get_organization with an id.'] : []),
        ];
  return { structured: { data, meta }, text: lines.join("\n") };
}

export const searchTools = [
  defineTool({
    name: "search_organizations_by_description",
    title: "Search organizations by business description",
    description:
      'Use it to find companies by what they do, make or sell, described in plain words (e.g. "warehouse robots for grocery distribution"), when you have no particular organization in mind. ' +
      "Returns the organizations whose business is most similar, best first. " +
      "Use find_similar_organizations when you know one organization's id, and search_organizations_by_customer_base to match on who the customers are. " +
      `${FILTERS_HELP} ${PAGING_HELP}`,
    input: SimilarToDescriptionInput.safeExtend(agentOptions),
    output: SearchToolOutput,
    hints: READ_ONLY,
    scope: "search:read",
    async run({ detail, ...input }, { services, principal }) {
      return reply(await services.search.similarToDescription(page(input, detail), principal), detail, `similar to "${input.description.slice(0, 80)}"`);
    },
  }),

  defineTool({
    name: "find_similar_organizations",
    title: "Find organizations similar to a known organization",
    description:
      'Use it for lookalikes, "companies like X", once you have X\'s orgsim id (from a search result or get_organization). ' +
      "Returns the organizations whose business profile is most similar to X's, best first, X itself never among them. " +
      "Unknown ids answer NOT_FOUND. " +
      `${FILTERS_HELP} ${PAGING_HELP}`,
    input: SimilarToOrganizationInput.safeExtend(agentOptions),
    output: SearchToolOutput,
    hints: READ_ONLY,
    scope: "search:read",
    async run({ detail, ...input }, { services, principal }) {
      return reply(await services.search.similarToOrganization(page(input, detail), principal), detail, `similar to organization ${input.organization_id}`);
    },
  }),

  defineTool({
    name: "search_organizations_by_examples",
    title: "Search organizations like several examples",
    description:
      "Use it when the user gives several examples (and maybe counter-examples): companies like A, B and C but not like D. " +
      "Returns the organizations most like the `like` seeds and least like the `unlike` seeds, best first, no seed among them. " +
      'Each seed is {"organization_id": 42}, {"domain": "stripe.com"} or {"description": "…"}; a seed that names no stored organization is listed in meta.missing_seeds and the others are used. ' +
      `${FILTERS_HELP} ${PAGING_HELP}`,
    input: SimilarToSeedsInput.safeExtend(agentOptions),
    output: SeedSearchToolOutput,
    hints: READ_ONLY,
    scope: "search:read",
    async run({ detail, ...input }, { services, principal }) {
      const response = await services.search.similarToSeeds(page(input, detail), principal);
      const answer = reply(response, detail, `like ${input.like.length} example${input.like.length > 1 ? "s" : ""}`);
      const missing = response.meta.missing_seeds.map((m) => `${m.list}[${m.index}]: ${m.reason}`);
      const text = missing.length ? `Seeds not found, left out: ${missing.join("; ")}.\n${answer.text}` : answer.text;
      return { structured: { ...answer.structured, meta: { ...answer.structured.meta, missing_seeds: response.meta.missing_seeds } }, text };
    },
  }),

  defineTool({
    name: "search_organizations_by_customer_base",
    title: "Search organizations by customer base",
    description:
      'Use it to find who sells to a kind of customer, described in plain words (e.g. "plant managers at mid-sized food manufacturers"): competitors for a market, partners, lookalike vendors. ' +
      "Returns the organizations whose customer base matches best, first; organizations with no known customers are not candidates; one whose customers were inferred from its description is judged by its whole profile too. " +
      `${FILTERS_HELP} ${PAGING_HELP}`,
    input: SimilarCustomersInput.safeExtend(agentOptions),
    output: SearchToolOutput,
    hints: READ_ONLY,
    scope: "search:read",
    async run({ detail, ...input }, { services, principal }) {
      return reply(
        await services.search.similarCustomers(page(input, detail), principal),
        detail,
        `whose customers match "${input.organization_customer.slice(0, 80)}"`,
      );
    },
  }),
];

export function registerSearchTools(server: McpServer, runtime: ToolRuntime): void {
  registerTools(server, runtime, searchTools);
}

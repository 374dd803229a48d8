/**
 * Does the tool list alone lead to the right tool? No language model is reachable from this
 * machine, so the reader here is the product's own embedding model, as in tool retrieval: each
 * request goes to the tool whose name and lead (its first two sentences, which say when to use it
 * and what it answers) are closest in meaning. Two tools whose leads blur into each other, or a lead
 * that does not say what the tool is for, make it pick wrong.
 *
 * A guard, not proof that an agent picks right: the leads were edited until these requests passed,
 * and of 16 other requests written afterwards this small model picked 10 right (a language model
 * reads far better than nearest meaning).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { expect, it } from "vitest";
import { TOOL_NAMES, type ToolName } from "../src/index";
import { type Harness, withConnectedApp } from "./helpers";
import { leadOf } from "./lead";

/** What users ask an agent, in their words, two or three for each tool. */
const REQUESTS: Record<ToolName, string[]> = {
  search_organizations_by_description: ["Find startups that build robots for warehouses", "Which companies make batteries for electric buses?"],
  find_similar_organizations: ["Show me lookalikes of organization 4242", "Find companies similar to the one with id 17"],
  search_organizations_by_examples: [
    "Companies like Stripe, Adyen and Checkout.com, but not like PayPal",
    "Here are three example companies and one counter-example; find more like the examples",
  ],
  search_organizations_by_customer_base: ["Who sells to hospital procurement teams?", "Find vendors whose customers are small independent restaurants"],
  find_organizations: ["What is the orgsim id of Acme Robotics?", "Look up the company whose website is stripe.com"],
  get_organization: [
    "How many employees does organization 4242 have, and how much funding has it raised?",
    "Show me the full profile of organization 17 with its offices and contacts",
  ],
  list_categories: ["Which business categories can I filter by?", "What industry types does the taxonomy have?"],
  create_collection: ["Start a new shortlist called Q3 prospects", "Make me a new saved list for fintech leads"],
  list_collections: ["Which saved lists do I have?", "Show me all my collections"],
  get_collection: ["How many items does collection col_123 hold, and of which type?"],
  list_collection_items: ["What have I saved in collection col_123 so far?", "Show the items in my shortlist"],
  add_collection_item: ["Save organization 4242 to my shortlist", "Add this company to my collection"],
  bulk_add_collection_items: ["Add these 200 companies to my list in one go", "Save all forty search results to the collection at once"],
  update_collection_item: ["Change the notes on item itm_9", "Tag the saved item itm_9 as hot lead"],
  delete_collection_item: ["Remove item itm_9 from my shortlist", "Take that company off the list"],
  export_collection: ["Download my shortlist as a CSV file for Excel", "Give me the collection as a file I can import into our CRM"],
};

let harness: Harness;
let client: Client;
withConnectedApp((started, connected) => {
  harness = started;
  client = connected;
});

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);

/** For each request, the name of the tool whose name and lead are closest to it in meaning. */
async function pick(tools: Tool[], requests: string[]): Promise<string[]> {
  const { embedder } = harness.app;
  const cards = await embedder.embed(
    tools.map((tool) => `${tool.name.replaceAll("_", " ")}: ${leadOf(tool)}`),
    "document",
  );
  const asked = await embedder.embed(requests, "query");
  return asked.map((query) => {
    const scores = cards.map((card) => dot(query, card));
    return tools[scores.indexOf(Math.max(...scores))]?.name ?? "";
  });
}

it("leads each user request to the right tool, from the tool list alone", async () => {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
  const requests = Object.entries(REQUESTS).flatMap(([tool, asked]) => asked.map((request) => ({ tool, request })));
  const picked = await pick(
    tools,
    requests.map((r) => r.request),
  );
  const wrong = requests.flatMap((r, i) => (picked[i] === r.tool ? [] : [`"${r.request}": ${picked[i]}, not ${r.tool}`]));
  expect(wrong).toEqual([]);
});

/** What the user asked for, and the one procedure of the router that answers it. */
import type { OrgsimClient } from "@orgsim/client";
import type { SearchFilters, SearchResponse } from "../api/types";

export type SearchMode = "description" | "organization" | "customers";

/** An organization chosen as an example (by type-ahead or "More like this"). */
export interface OrganizationSeed {
  id: number;
  name: string;
}

export interface SearchRequest {
  mode: SearchMode;
  /** The description, or the customer base, in those modes. */
  text: string;
  /** Organization mode: examples to resemble, and counter-examples. */
  like: OrganizationSeed[];
  unlike: OrganizationSeed[];
  filters: SearchFilters;
}

export const PAGE_SIZE = 10;

export type SearchPage = SearchResponse & { meta: { missing_seeds?: unknown[] } };

/**
 * One page of results. Explanations are always asked for: they are computed after the ranking,
 * so the ranking is the same. One organization and no counter-example is the plain
 * similar-to-organization search; anything more goes to the multi-seed search.
 */
export function fetchPage(client: OrgsimClient, request: SearchRequest, cursor?: string): Promise<SearchPage> {
  const options = { ...request.filters, explain: true, limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) };
  switch (request.mode) {
    case "description":
      return client.search.similarToDescription.query({ description: request.text, ...options });
    case "customers":
      return client.search.similarCustomers.query({ organization_customer: request.text, ...options });
    case "organization": {
      const [only] = request.like;
      if (only && request.like.length === 1 && request.unlike.length === 0)
        return client.search.similarToOrganization.query({ organization_id: only.id, ...options });
      return client.search.similarToSeeds.mutate({
        like: request.like.map((seed) => ({ organization_id: seed.id })),
        unlike: request.unlike.map((seed) => ({ organization_id: seed.id })),
        ...options,
      });
    }
  }
}

/** Runs a search and pages through it by cursor: the results so far, the next cursor, loading and error. */
import { useCallback, useRef, useState } from "react";
import { type ShownError, shownErrorOf } from "../api/errors";
import { useOrgsim } from "../api/OrgsimProvider";
import type { OrganizationResult } from "../api/types";
import { fetchPage, type SearchRequest } from "./search-request";

export interface SearchState {
  request: SearchRequest | null;
  results: OrganizationResult[];
  nextCursor: string | null;
  loading: "first" | "more" | null;
  error: ShownError | null;
  missingSeeds: number;
}

const IDLE: SearchState = { request: null, results: [], nextCursor: null, loading: null, error: null, missingSeeds: 0 };

export function useSearch() {
  const { client, noticeError } = useOrgsim();
  const [state, setState] = useState<SearchState>(IDLE);
  // Only the latest search may write its answer: an older one still in flight is ignored.
  const generation = useRef(0);

  const load = useCallback(
    async (request: SearchRequest, cursor: string | null, previous: OrganizationResult[]) => {
      const mine = ++generation.current;
      setState((s) => ({ ...s, request, results: previous, loading: cursor ? "more" : "first", error: null }));
      try {
        const page = await fetchPage(client, request, cursor ?? undefined);
        if (mine !== generation.current) return;
        setState({
          request,
          results: [...previous, ...page.data],
          nextCursor: page.meta.next_cursor,
          loading: null,
          error: null,
          missingSeeds: page.meta.missing_seeds?.length ?? 0,
        });
      } catch (error) {
        noticeError(error);
        if (mine !== generation.current) return;
        setState((s) => ({ ...s, loading: null, error: shownErrorOf(error) }));
      }
    },
    [client, noticeError],
  );

  const search = useCallback((request: SearchRequest) => load(request, null, []), [load]);
  const more = useCallback(() => {
    if (state.request && state.nextCursor && !state.loading) void load(state.request, state.nextCursor, state.results);
  }, [load, state]);
  return { state, search, more };
}

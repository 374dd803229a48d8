/** The results of the latest search, a page at a time ("Show more" follows the cursor), with its states. */
import type { SaveTarget } from "../collections/SaveButton";
import type { OrganizationResult } from "../api/types";
import type { SearchState } from "../search/useSearch";
import { ErrorNotice } from "../ui/ErrorNotice";
import { ResultCard } from "./ResultCard";

export function ResultList({
  state,
  onMore,
  onMoreLikeThis,
  target,
}: {
  state: SearchState;
  onMore(): void;
  onMoreLikeThis(org: OrganizationResult): void;
  target: SaveTarget | null;
}) {
  const { request, results, loading, error, nextCursor } = state;
  return (
    <section className="results" aria-labelledby="results-title" aria-busy={loading !== null}>
      <h2 id="results-title">Results</h2>
      <p className="sr-only" aria-live="polite">
        {loading === "first" ? "Searching…" : loading === "more" ? "Loading more results…" : request && !error ? `${results.length} results shown` : ""}
      </p>
      {!request && !loading && <p className="empty">Describe organizations, pick known ones, or describe a customer base, then search.</p>}
      {loading === "first" && (
        <p className="loading" role="status">
          Searching…
        </p>
      )}
      {error && <ErrorNotice error={error} title="The search failed" />}
      {state.missingSeeds > 0 && (
        <p className="notice" role="status">
          {state.missingSeeds} example(s) no longer exist and were left out.
        </p>
      )}
      {request && !loading && !error && results.length === 0 && (
        <p className="empty" role="status">
          No organization matches. Loosen the filters or describe it differently.
        </p>
      )}
      {loading !== "first" && results.length > 0 && (
        <ol className="result-list">
          {results.map((org) => (
            <li key={org.id}>
              <ResultCard org={org} onMoreLikeThis={() => onMoreLikeThis(org)} target={target} />
            </li>
          ))}
        </ol>
      )}
      {loading !== "first" && nextCursor && (
        <button type="button" className="more" onClick={onMore} disabled={loading === "more"}>
          {loading === "more" ? "Loading…" : "Show more results"}
        </button>
      )}
      {loading === null && results.length > 0 && !nextCursor && <p className="muted">No more results.</p>}
    </section>
  );
}

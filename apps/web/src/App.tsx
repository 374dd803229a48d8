/** The page: the search form and filters, the results, and the collections beside them. */
import { useState } from "react";
import { ApiKeyForm, ForgetKeyButton } from "./access/ApiKeyForm";
import { useOrgsim } from "./api/OrgsimProvider";
import type { OrganizationResult } from "./api/types";
import { CollectionsPanel } from "./collections/CollectionsPanel";
import { useCollections } from "./collections/useCollections";
import { FilterPanel } from "./filters/FilterPanel";
import { EMPTY_FILTERS, type FilterForm, toSearchFilters } from "./filters/filter-form";
import { ResultList } from "./results/ResultList";
import { draftProblem, EMPTY_DRAFT, type SearchDraft, SearchForm } from "./search/SearchForm";
import type { SearchRequest } from "./search/search-request";
import { useSearch } from "./search/useSearch";

function requestOf(draft: SearchDraft, filters: FilterForm): SearchRequest {
  return {
    mode: draft.mode,
    text: draft.mode === "customers" ? draft.customers.trim() : draft.description.trim(),
    like: draft.like,
    unlike: draft.unlike,
    filters: toSearchFilters(filters),
  };
}

export function App() {
  const { keyNeeded } = useOrgsim();
  const [draft, setDraft] = useState<SearchDraft>(EMPTY_DRAFT);
  const [filters, setFilters] = useState<FilterForm>(EMPTY_FILTERS);
  const [problem, setProblem] = useState<string | null>(null);
  const { state, search, more } = useSearch();
  const collections = useCollections();
  const [activeId, setActiveId] = useState<string | null>(null);
  // Bumped when a result is saved, so the open collection shows it.
  const [version, setVersion] = useState(0);
  const active = collections.list?.find((c) => c.id === activeId) ?? collections.list?.[0] ?? null;

  const saved = () => {
    void collections.reload();
    setVersion((v) => v + 1);
  };
  const submit = (next: SearchDraft = draft) => {
    const why = draftProblem(next);
    setProblem(why);
    if (!why) void search(requestOf(next, filters));
  };
  const moreLikeThis = (org: OrganizationResult) => {
    const next: SearchDraft = { ...draft, mode: "organization", like: [{ id: org.id, name: org.name }], unlike: [] };
    setDraft(next);
    submit(next);
    document.getElementById("main")?.focus();
  };

  return (
    <>
      <a className="skip" href="#results-title">
        Skip to results
      </a>
      <header className="top">
        <h1>orgsim</h1>
        <p className="tagline">Find organizations similar to a description, known organizations or a customer base.</p>
        <ForgetKeyButton />
      </header>
      {keyNeeded && <ApiKeyForm />}
      <main id="main" tabIndex={-1} className="layout">
        <div className="side">
          <SearchForm draft={draft} onChange={setDraft} onSubmit={() => submit()} busy={state.loading === "first"} problem={problem} />
          <FilterPanel value={filters} onChange={setFilters} />
        </div>
        <ResultList state={state} onMore={more} onMoreLikeThis={moreLikeThis} target={active ? { collection: active, onSaved: saved } : null} />
        <CollectionsPanel collections={collections} activeId={active?.id ?? null} onActivate={setActiveId} version={version} />
      </main>
    </>
  );
}

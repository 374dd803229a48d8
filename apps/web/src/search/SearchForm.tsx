/**
 * The three ways to search: from a description, from known organizations (several examples and
 * counter-examples), or from a customer base. The mode is a radio group, so arrows switch it.
 */
import { type FormEvent, useId } from "react";
import { OrganizationPicker } from "./OrganizationPicker";
import type { OrganizationSeed, SearchMode } from "./search-request";
import { SeedList } from "./SeedList";

export interface SearchDraft {
  mode: SearchMode;
  description: string;
  customers: string;
  like: OrganizationSeed[];
  unlike: OrganizationSeed[];
}

export const EMPTY_DRAFT: SearchDraft = { mode: "description", description: "", customers: "", like: [], unlike: [] };

const MODES: { mode: SearchMode; label: string }[] = [
  { mode: "description", label: "A description" },
  { mode: "organization", label: "Known organizations" },
  { mode: "customers", label: "A customer base" },
];

/** Why the draft cannot be searched yet, or null when it can. */
export function draftProblem(draft: SearchDraft): string | null {
  if (draft.mode === "description" && draft.description.trim().length < 3) return "Describe what the organizations do (3 characters or more).";
  if (draft.mode === "customers" && draft.customers.trim().length < 3) return "Describe the customers (3 characters or more).";
  if (draft.mode === "organization" && draft.like.length === 0) return "Choose at least one organization to resemble.";
  return null;
}

export function SearchForm({
  draft,
  onChange,
  onSubmit,
  busy,
  problem,
}: {
  draft: SearchDraft;
  onChange(next: SearchDraft): void;
  onSubmit(): void;
  busy: boolean;
  problem: string | null;
}) {
  const id = useId();
  const set = (patch: Partial<SearchDraft>) => onChange({ ...draft, ...patch });
  const chosen = [...draft.like, ...draft.unlike].map((s) => s.id);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };

  return (
    <form className="panel search" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Find similar organizations</h2>
      <fieldset className="modes">
        <legend>Search from</legend>
        {MODES.map(({ mode, label }) => (
          <label key={mode} className="mode">
            <input type="radio" name={`${id}-mode`} value={mode} checked={draft.mode === mode} onChange={() => set({ mode })} />
            {label}
          </label>
        ))}
      </fieldset>

      {draft.mode === "description" && (
        <div className="field">
          <label htmlFor={`${id}-description`}>What the organizations do</label>
          <textarea
            id={`${id}-description`}
            rows={3}
            maxLength={2000}
            value={draft.description}
            onChange={(e) => set({ description: e.target.value })}
            placeholder="e.g. robots for food packaging"
          />
        </div>
      )}
      {draft.mode === "customers" && (
        <div className="field">
          <label htmlFor={`${id}-customers`}>Who their customers are</label>
          <textarea
            id={`${id}-customers`}
            rows={3}
            maxLength={2000}
            value={draft.customers}
            onChange={(e) => set({ customers: e.target.value })}
            placeholder="e.g. dental clinics"
          />
        </div>
      )}
      {draft.mode === "organization" && (
        <div className="seeds">
          <OrganizationPicker label="Like these organizations" exclude={chosen} onPick={(seed) => set({ like: [...draft.like, seed] })} />
          <SeedList label="Like" seeds={draft.like} onRemove={(seedId) => set({ like: draft.like.filter((s) => s.id !== seedId) })} />
          <OrganizationPicker label="But not like these (optional)" exclude={chosen} onPick={(seed) => set({ unlike: [...draft.unlike, seed] })} />
          <SeedList label="Not like" seeds={draft.unlike} onRemove={(seedId) => set({ unlike: draft.unlike.filter((s) => s.id !== seedId) })} />
        </div>
      )}
      <div className="row">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Searching…" : "Search"}
        </button>
        {problem && (
          <p className="field-error" role="status">
            {problem}
          </p>
        )}
      </div>
    </form>
  );
}

/**
 * A searchable multi-select: a text box narrows a list of checkboxes, and the chosen values show
 * above it as removable chips. Plain form controls, so the keyboard and screen readers need nothing
 * special: Tab reaches the box, the checkboxes and the chips; Space toggles.
 */
import { useId, useMemo, useState } from "react";

export interface PickerOption {
  value: string;
  label: string;
  /** Shown before the label in the list (e.g. "Region"), and searched too. */
  kind?: string;
}

interface Props {
  legend: string;
  options: PickerOption[];
  selected: string[];
  onChange(values: string[]): void;
  /** Most options listed at once; typing narrows the rest. */
  shown?: number;
}

export function SearchablePicker({ legend, options, selected, onChange, shown = 40 }: Props) {
  const id = useId();
  const [query, setQuery] = useState("");
  const byValue = useMemo(() => new Map(options.map((o) => [o.value, o])), [options]);
  const matches = useMemo(() => {
    const q = query.trim().toLowerCase();
    const found = q ? options.filter((o) => `${o.label} ${o.value} ${o.kind ?? ""}`.toLowerCase().includes(q)) : options;
    return { listed: found.slice(0, shown), more: Math.max(0, found.length - shown) };
  }, [options, query, shown]);
  const toggle = (value: string, on: boolean) => onChange(on ? [...selected, value] : selected.filter((v) => v !== value));

  return (
    <fieldset className="picker">
      <legend>{legend}</legend>
      {selected.length > 0 && (
        <ul className="chips" aria-label={`Chosen ${legend.toLowerCase()}`}>
          {selected.map((value) => (
            <li key={value}>
              <button type="button" className="chip" onClick={() => toggle(value, false)} aria-label={`Remove ${byValue.get(value)?.label ?? value}`}>
                {byValue.get(value)?.label ?? value} <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <label htmlFor={`${id}-q`} className="sr-only">
        Search {legend.toLowerCase()}
      </label>
      <input id={`${id}-q`} type="search" placeholder={`Search ${legend.toLowerCase()}…`} value={query} onChange={(e) => setQuery(e.target.value)} />
      <div className="picker-list">
        {matches.listed.map((option) => (
          <label key={option.value} className="check">
            <input type="checkbox" checked={selected.includes(option.value)} onChange={(e) => toggle(option.value, e.target.checked)} />
            {option.kind && <span className="kind">{option.kind}</span>} {option.label}
          </label>
        ))}
        {matches.listed.length === 0 && <p className="muted">No match for “{query}”.</p>}
        {matches.more > 0 && <p className="muted">{matches.more} more: type to narrow the list.</p>}
      </div>
    </fieldset>
  );
}

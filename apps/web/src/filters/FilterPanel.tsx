/** The full filter panel: location (countries, regions, HQ only), size, age, categories and funding. */
import { EMPLOYEE_RANGES, FUNDING_STAGES } from "@orgsim/core/browser";
import { useEffect, useMemo, useState } from "react";
import { type ShownError, shownErrorOf } from "../api/errors";
import { useOrgsim } from "../api/OrgsimProvider";
import type { Category } from "../api/types";
import { ErrorNotice } from "../ui/ErrorNotice";
import { CheckboxGroup } from "./CheckboxGroup";
import { activeFilterCount, EMPTY_FILTERS, type FilterForm, labelOf } from "./filter-form";
import { COUNTRY_OPTIONS, REGION_OPTIONS } from "./location-options";
import { RangeInputs } from "./RangeInputs";
import { SearchablePicker } from "./SearchablePicker";

export function FilterPanel({ value, onChange }: { value: FilterForm; onChange(next: FilterForm): void }) {
  const set = (patch: Partial<FilterForm>) => onChange({ ...value, ...patch });
  const categories = useCategories();
  const count = activeFilterCount(value);
  const locations = useMemo(() => [...REGION_OPTIONS, ...COUNTRY_OPTIONS], []);
  const categoryOptions = useMemo(
    () => (Array.isArray(categories) ? categories.map((c) => ({ value: c.slug, label: c.name, kind: labelOf(c.sector) })) : []),
    [categories],
  );
  const location = [...value.regions, ...value.countries];
  const [openAtFirst] = useState(() => window.matchMedia("(min-width: 1100px)").matches);

  return (
    <section className="panel filters" aria-labelledby="filters-title">
      {/* Folded on narrow screens at first, so the results are not a long scroll away. */}
      <details open={openAtFirst}>
        <summary>
          <h2 id="filters-title" className="filters-title">
            Filters{count > 0 ? ` (${count})` : ""}
          </h2>
        </summary>
        {count > 0 && (
          <button type="button" className="link-button" onClick={() => onChange(EMPTY_FILTERS)}>
            Clear filters
          </button>
        )}
        <SearchablePicker
          legend="Countries and regions"
          options={locations}
          selected={location}
          onChange={(chosen) => {
            const regions = new Set(REGION_OPTIONS.map((o) => o.value));
            set({ regions: chosen.filter((v) => regions.has(v)), countries: chosen.filter((v) => !regions.has(v)) });
          }}
        />
        <label className="check">
          <input type="checkbox" checked={value.hq_only} onChange={(e) => set({ hq_only: e.target.checked })} />
          Headquarters only (off: any office)
        </label>
        <CheckboxGroup legend="Employees" values={EMPLOYEE_RANGES} selected={value.employee_ranges} onChange={(employee_ranges) => set({ employee_ranges })} />
        <RangeInputs
          legend="Employee count"
          type="number"
          min={value.employees_min}
          max={value.employees_max}
          onChange={({ min, max }) => set({ employees_min: min, employees_max: max })}
        />
        <RangeInputs
          legend="Founded (year)"
          type="number"
          min={value.founded_year_min}
          max={value.founded_year_max}
          onChange={({ min, max }) => set({ founded_year_min: min, founded_year_max: max })}
        />
        {Array.isArray(categories) ? (
          <SearchablePicker legend="Categories" options={categoryOptions} selected={value.categories} onChange={(c) => set({ categories: c })} />
        ) : categories ? (
          <ErrorNotice error={categories} title="Categories could not be loaded" />
        ) : (
          <p className="muted" aria-live="polite">
            Loading categories…
          </p>
        )}
        <CheckboxGroup
          legend="Latest funding stage"
          values={FUNDING_STAGES}
          selected={value.funding_stages}
          onChange={(funding_stages) => set({ funding_stages })}
          label={labelOf}
        />
        <RangeInputs
          legend="Latest funding date"
          type="date"
          min={value.last_funding_from}
          max={value.last_funding_to}
          onChange={({ min, max }) => set({ last_funding_from: min, last_funding_to: max })}
        />
      </details>
    </section>
  );
}

/** The taxonomy from `categories.list` (GET /v1/categories): the list, an error, or null while loading. */
function useCategories(): Category[] | ShownError | null {
  const { client, noticeError } = useOrgsim();
  const [state, setState] = useState<Category[] | ShownError | null>(null);
  useEffect(() => {
    let live = true;
    client.categories.list
      .query()
      .then((answer) => live && setState(answer.data))
      .catch((error) => {
        noticeError(error);
        if (live) setState(shownErrorOf(error));
      });
    return () => {
      live = false;
    };
  }, [client, noticeError]);
  return state;
}

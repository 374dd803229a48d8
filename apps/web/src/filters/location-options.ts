/** The location picker's options: countries and UN M49 regions, from the core's own country data. */
import { COUNTRY_CODES, countryName, REGION_SLUGS } from "@orgsim/core/browser";
import type { PickerOption } from "./SearchablePicker";
import { labelOf } from "./filter-form";

export const COUNTRY_OPTIONS: PickerOption[] = COUNTRY_CODES.map((code) => ({ value: code, label: `${countryName(code) ?? code} (${code})` })).sort((a, b) =>
  a.label.localeCompare(b.label),
);

export const REGION_OPTIONS: PickerOption[] = REGION_SLUGS.map((slug) => ({ value: slug, label: labelOf(slug), kind: "Region" }));

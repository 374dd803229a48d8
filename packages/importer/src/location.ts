/**
 * Countries and places from free text: "San Francisco, CA, USA" ->
 * { city: "San Francisco", subdivision_code: "US-CA", country_code: "US" }.
 */
import { isSubdivisionCode, normalizeCountry } from "@orgsim/core";

export interface ParsedPlace {
  address_line?: string;
  city?: string;
  subdivision_code?: string;
  country_code?: string;
}

/**
 * English names and former names that i18n-iso-countries does not list (the
 * core's normalizeCountry already handles "USA", "UK", "South Korea", ...).
 */
const COUNTRY_ALIASES: Record<string, string> = {
  "u.s.": "US",
  "u.s.a.": "US",
  "united states of america": "US",
  america: "US",
  "u.k.": "GB",
  england: "GB",
  scotland: "GB",
  wales: "GB",
  "northern ireland": "GB",
  macau: "MO",
  macao: "MO",
  "british virgin islands": "VG",
  macedonia: "MK",
  laos: "LA",
  syria: "SY",
  moldova: "MD",
  burma: "MM",
  brunei: "BN",
  "viet nam": "VN",
  swaziland: "SZ",
  micronesia: "FM",
  "cape verde": "CV",
  "the bahamas": "BS",
  "the gambia": "GM",
  "east timor": "TL",
  "vatican city": "VA",
  "republic of the congo": "CG",
  "congo-brazzaville": "CG",
  "congo-kinshasa": "CD",
  "st. lucia": "LC",
  "st. kitts and nevis": "KN",
  "st. vincent and the grenadines": "VC",
};

/** ISO 3166-1 alpha-2 of a country given as alpha-2, alpha-3 or English name; null when unknown. */
export function toCountryCode(text: string): string | null {
  const value = text.trim();
  if (!value) return null;
  return normalizeCountry(value, { names: true }) ?? COUNTRY_ALIASES[value.toLowerCase()] ?? null;
}

// US states, DC and territories; Canadian provinces and territories; the UK's nations.
const US = {
  AL: "Alabama",
  AK: "Alaska",
  AZ: "Arizona",
  AR: "Arkansas",
  CA: "California",
  CO: "Colorado",
  CT: "Connecticut",
  DE: "Delaware",
  DC: "District of Columbia",
  FL: "Florida",
  GA: "Georgia",
  HI: "Hawaii",
  ID: "Idaho",
  IL: "Illinois",
  IN: "Indiana",
  IA: "Iowa",
  KS: "Kansas",
  KY: "Kentucky",
  LA: "Louisiana",
  ME: "Maine",
  MD: "Maryland",
  MA: "Massachusetts",
  MI: "Michigan",
  MN: "Minnesota",
  MS: "Mississippi",
  MO: "Missouri",
  MT: "Montana",
  NE: "Nebraska",
  NV: "Nevada",
  NH: "New Hampshire",
  NJ: "New Jersey",
  NM: "New Mexico",
  NY: "New York",
  NC: "North Carolina",
  ND: "North Dakota",
  OH: "Ohio",
  OK: "Oklahoma",
  OR: "Oregon",
  PA: "Pennsylvania",
  RI: "Rhode Island",
  SC: "South Carolina",
  SD: "South Dakota",
  TN: "Tennessee",
  TX: "Texas",
  UT: "Utah",
  VT: "Vermont",
  VA: "Virginia",
  WA: "Washington",
  WV: "West Virginia",
  WI: "Wisconsin",
  WY: "Wyoming",
  PR: "Puerto Rico",
  GU: "Guam",
  VI: "U.S. Virgin Islands",
  AS: "American Samoa",
  MP: "Northern Mariana Islands",
} as const;
const CA = {
  AB: "Alberta",
  BC: "British Columbia",
  MB: "Manitoba",
  NB: "New Brunswick",
  NL: "Newfoundland and Labrador",
  NS: "Nova Scotia",
  NT: "Northwest Territories",
  NU: "Nunavut",
  ON: "Ontario",
  PE: "Prince Edward Island",
  QC: "Quebec",
  SK: "Saskatchewan",
  YT: "Yukon",
} as const;
const GB = { ENG: "England", SCT: "Scotland", WLS: "Wales", NIR: "Northern Ireland" } as const;

/** "CA" / "california" -> "US-CA", per country; only codes that ISO 3166-2 lists. */
const SUBDIVISIONS_BY_COUNTRY = new Map<string, Map<string, string>>();
for (const [country, table] of [
  ["US", US],
  ["CA", CA],
  ["GB", GB],
] as const) {
  const lookup = new Map<string, string>();
  for (const [code, name] of Object.entries(table)) {
    const full = `${country}-${code}`;
    if (!isSubdivisionCode(full)) continue;
    if (country !== "GB") lookup.set(code.toLowerCase(), full);
    lookup.set(name.toLowerCase(), full);
  }
  SUBDIVISIONS_BY_COUNTRY.set(country, lookup);
}
// Common older or French spellings
SUBDIVISIONS_BY_COUNTRY.get("CA")?.set("nf", "CA-NL").set("newfoundland", "CA-NL").set("pq", "CA-QC").set("québec", "CA-QC");

/** A US state or Canadian province (code or name, e.g. "TX", "Ontario") with its country; null when neither. */
function northAmericanSubdivision(text: string): string | null {
  const key = text.trim().toLowerCase();
  return SUBDIVISIONS_BY_COUNTRY.get("US")?.get(key) ?? SUBDIVISIONS_BY_COUNTRY.get("CA")?.get(key) ?? null;
}

/**
 * ISO 3166-2 code of a subdivision given as a full code ("US-CA"), or as a
 * short code or name within a known country ("CA" in US, "NSW" in AU). Null
 * when that is not an ISO 3166-2 subdivision.
 */
export function toSubdivisionCode(text: string, countryCode: string | null): string | null {
  const value = text.trim();
  if (!value) return null;
  const upper = value.toUpperCase();
  if (/^[A-Z]{2}-[A-Z0-9]{1,3}$/.test(upper) && isSubdivisionCode(upper)) {
    return countryCode && !upper.startsWith(`${countryCode}-`) ? null : upper;
  }
  if (!countryCode) return northAmericanSubdivision(value);
  const named = SUBDIVISIONS_BY_COUNTRY.get(countryCode)?.get(value.toLowerCase());
  if (named) return named;
  const short = upper.replace(/\./g, "");
  if (/^[A-Z0-9]{1,3}$/.test(short) && isSubdivisionCode(`${countryCode}-${short}`)) return `${countryCode}-${short}`;
  return null;
}

/** Text that names no place. */
const NOWHERE = new Set(["remote", "anywhere", "worldwide", "global", "online", "n/a", "na", "none", "-", "—", "unknown"]);

/** A short upper-case token such as "MH" or "N.L.": a region code, never a city. */
const REGION_CODE = /^(?:[A-Z]{2,3}|(?:[A-Z]\.){1,3})$/;

/**
 * Parses free text "City, Subdivision, Country" (parts may be missing) into a
 * place. The last part is the country when it names one; a US state or
 * Canadian province (code or name) becomes an ISO 3166-2 code (US-CA) and
 * implies its country; the part before it is the city and anything earlier the
 * address line. "Remote" and the like give null.
 *
 * Other countries' regions are not coded: a part between city and country that
 * is not a US/Canadian subdivision or UK nation is dropped ("Bengaluru, KA,
 * India" -> Bengaluru, IN), and so is a lone short code ("MH, India" -> IN).
 *
 * Ambiguity: a two-letter last part that is a US state or Canadian province
 * code is read as one ("Austin, TX"), so "Toronto, CA" means California and
 * "Berlin, DE" Delaware: for such data write the country out or map separate
 * columns.
 */
export function parseLocationText(text: string): ParsedPlace | null {
  const parts = text
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  if (parts.length === 0 || (parts.length === 1 && NOWHERE.has((parts[0] as string).toLowerCase()))) return null;

  let country: string | null = null;
  let subdivision: string | null = null;
  const last = parts[parts.length - 1] as string;

  const lastAsState = /^[A-Za-z]{2}$/.test(last) && parts.length > 1 ? northAmericanSubdivision(last) : null;
  if (lastAsState) {
    subdivision = lastAsState;
    country = lastAsState.slice(0, 2);
    parts.pop();
  } else {
    country = toCountryCode(last);
    if (country) parts.pop();
  }

  if (!subdivision && parts.length > 0 && (parts.length > 1 || country)) {
    const candidate = parts[parts.length - 1] as string;
    const code = country ? toNamedSubdivision(candidate, country) : northAmericanSubdivision(candidate);
    if (code) {
      subdivision = code;
      country ??= code.slice(0, 2);
      parts.pop();
    } else if (parts.length > 1 || REGION_CODE.test(candidate)) {
      // a region we cannot code ("KA" in India, "West Java" in Indonesia): not the city
      if (parts.length > 1 || country) parts.pop();
    }
  }

  const place: ParsedPlace = {};
  const city = parts.pop();
  if (city) place.city = city;
  if (parts.length > 0) place.address_line = parts.join(", ");
  if (subdivision) place.subdivision_code = subdivision;
  if (country) place.country_code = country;
  return Object.keys(place).length > 0 ? place : null;
}

/** Subdivisions location text may name: US states and Canadian provinces (code or name), UK nations. */
function toNamedSubdivision(text: string, country: string): string | null {
  return SUBDIVISIONS_BY_COUNTRY.get(country)?.get(text.trim().toLowerCase()) ?? null;
}

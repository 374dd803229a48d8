/**
 * Countries, UN M49 regions and ISO 3166-2 subdivisions.
 * Country names and codes come from i18n-iso-countries, M49 groupings from
 * @rapideditor/country-coder, subdivision codes from iso-3166.
 */
import * as countryCoder from "@rapideditor/country-coder";
import countries from "i18n-iso-countries";
import english from "i18n-iso-countries/langs/en.json" with { type: "json" };
import { iso31662 } from "iso-3166";

countries.registerLocale(english);

const REGION_LEVELS = new Set(["region", "subregion", "intermediateRegion"]);

/** "South-eastern Asia" -> "south-eastern-asia" */
const slugify = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** Every M49 region, sub-region and intermediate region, by slug. */
const regionFeatures = countryCoder.featuresIn("001", true).filter((f) => REGION_LEVELS.has(f.properties.level ?? ""));

export const REGION_SLUGS: readonly string[] = regionFeatures.map((f) => slugify(f.properties.nameEn)).sort();
const regionSlugByM49 = new Map(regionFeatures.map((f) => [f.properties.m49 ?? f.properties.id, slugify(f.properties.nameEn)]));

/**
 * country-coder only groups a country under a region when the whole feature lies
 * in it; these countries have overseas parts elsewhere, so their groups are
 * those of their main territory (M49 numeric codes, from the UN table).
 */
const MAINLAND_GROUPS: Record<string, string[]> = {
  DK: ["154", "150"],
  ES: ["039", "150"],
  FR: ["155", "150"],
  GB: ["154", "150"],
  NL: ["155", "150"],
  NO: ["154", "150"],
  RU: ["151", "150"],
  US: ["021", "003", "019"],
  UM: ["057", "009"],
  AQ: ["010"],
};

const regionsCache = new Map<string, string[]>();

/** Region slugs a country belongs to, most specific first (e.g. FR -> western-europe, europe). */
export function regionsOfCountry(alpha2: string): string[] {
  const cached = regionsCache.get(alpha2);
  if (cached) return cached;
  const groups = MAINLAND_GROUPS[alpha2] ?? countryCoder.feature(alpha2)?.properties.groups ?? [];
  const slugs = groups.flatMap((g: string) => {
    const slug = regionSlugByM49.get(g);
    return slug ? [slug] : [];
  });
  regionsCache.set(alpha2, slugs);
  return slugs;
}

/** The most specific M49 region of a country, or null when it has none. */
export function worldRegionOf(alpha2: string): string | null {
  return regionsOfCountry(alpha2)[0] ?? null;
}

const ALPHA2 = new Set(Object.keys(countries.getAlpha2Codes()));

/** Every ISO 3166-1 alpha-2 code the filters accept, sorted. */
export const COUNTRY_CODES: readonly string[] = [...ALPHA2].sort();

/**
 * Normalizes a country given as ISO 3166-1 alpha-2, alpha-3 or (with names=true)
 * an English name, to alpha-2. Returns null when it is not a country.
 */
export function normalizeCountry(input: string, options: { names?: boolean } = {}): string | null {
  const value = input.trim();
  if (/^[A-Za-z]{2}$/.test(value)) {
    const code = value.toUpperCase();
    return ALPHA2.has(code) ? code : null;
  }
  if (/^[A-Za-z]{3}$/.test(value)) {
    const code = countries.alpha3ToAlpha2(value.toUpperCase());
    if (code) return code;
  }
  if (options.names) return countries.getAlpha2Code(value, "en") ?? countries.getAlpha2Code(aliasOf(value), "en") ?? null;
  return null;
}

/** Common English spellings that i18n-iso-countries does not list. */
function aliasOf(name: string): string {
  const aliases: Record<string, string> = {
    "united states of america": "United States",
    usa: "United States",
    uk: "United Kingdom",
    "great britain": "United Kingdom",
    "south korea": "Korea, Republic of",
    "republic of korea": "Korea, Republic of",
    russia: "Russian Federation",
    "hong kong sar": "Hong Kong",
    "czech republic": "Czechia",
  };
  return aliases[name.toLowerCase()] ?? name;
}

export function countryName(alpha2: string): string | null {
  return countries.getName(alpha2, "en", { select: "official" }) ?? null;
}

export const isRegionSlug = (value: string) => REGION_SLUGS.includes(value);

const SUBDIVISIONS = new Set(iso31662.map((s) => s.code));
export const isSubdivisionCode = (value: string) => SUBDIVISIONS.has(value.toUpperCase());

/** Countries that lie in a region slug. */
export function countriesInRegion(slug: string): string[] {
  return [...ALPHA2].filter((code) => regionsOfCountry(code).includes(slug));
}

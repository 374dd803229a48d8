/** Invented organization names and their `.example` domains. */
import type { CategoryContent } from "../data/categories";
import { BLOCKED_FRAGMENTS, BLOCKED_WORDS, ENDINGS, GENERIC_SUFFIXES, LEGAL_FORMS, MIDDLES, ONSETS, SOFT_MIDDLES, VOWELS } from "../data/names";
import type { Random } from "../random";

export interface NameDraft {
  /** Display name, possibly with a legal form: "Brivora Robotics GmbH". */
  name: string;
  /** Registrable domain: "brivora-robotics.example". */
  domain: string;
}

const AWKWARD = /[aeiouy]{3}|ii|uu|yy|(.)\1|q(?!u)|x.*x|th.*th|([^aeiouy]).*\2.*\2/;

/** A pronounceable invented word such as "Brivora" or "Talvexa". */
export function coinWord(rng: Random): string {
  for (;;) {
    let word = rng.pick(ONSETS) + rng.pick(VOWELS);
    if (rng.chance(0.08)) word += rng.pick(SOFT_MIDDLES) + rng.pick(VOWELS);
    word += rng.pick(MIDDLES) + rng.pick(ENDINGS);
    if (word.length < 4 || word.length > 8 || AWKWARD.test(word) || BLOCKED_WORDS.has(word)) continue;
    if (BLOCKED_FRAGMENTS.some((fragment) => word.includes(fragment))) continue;
    return word.charAt(0).toUpperCase() + word.slice(1);
  }
}

/** Lowercase ASCII slug: "São Brivora" -> "sao-brivora". */
export function slugify(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

export interface NameContext {
  category: CategoryContent;
  country: string;
  foundedYear: number;
  isPublic: boolean;
}

/** One candidate name; the caller retries until it is unique. */
export function drawName(rng: Random, ctx: NameContext): NameDraft {
  const coined = coinWord(rng);
  const base = rng.weighted([
    [() => `${coined} ${rng.pick(ctx.category.nameWords)}`, 45],
    [() => coined, 30],
    [() => `${coined} ${rng.pick(GENERIC_SUFFIXES)}`, 25],
  ] as const)();
  const forms = LEGAL_FORMS[ctx.country];
  const formal = forms && (ctx.isPublic || ctx.foundedYear < 2005) && rng.chance(0.35);
  const name = formal ? `${base} ${rng.pick(forms)}` : base;
  return { name, domain: `${slugify(base)}.example` };
}

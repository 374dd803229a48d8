/**
 * Which text describes an organization's customers. The contract: the
 * `customer_description` when the data has one; otherwise the sentences of the
 * description that speak of customers; otherwise none (no customer vector).
 */

// Phrases that introduce who an organization sells to or serves.
const CUSTOMER_CUES = [
  /\bfor\s+(?:the\s+)?(?:[a-z-]+\s+){0,4}(?:teams?|companies|businesses|brands|retailers|clinics|hospitals|doctors|patients|developers|engineers|enterprises|firms|startups|banks|lenders|merchants|restaurants|schools|students|teachers|universities|governments?|agencies|manufacturers|farmers|consumers|families|parents|people|users|customers|clients|professionals|owners|operators|organizations|landlords|tenants|drivers|shippers|carriers|investors|creators|sellers|buyers|employers|employees|workers|nurses|dentists|pharmacies|insurers|utilities|cities|homeowners|travelers|shops|stores)\b/i,
  /\b(?:customers?|clients?)\b/i,
  /\b(?:serves?|serving|sells?\s+to|selling\s+to|used\s+by|trusted\s+by|helps?|helping|enables?|empowers?|built\s+for|designed\s+for|tailored\s+(?:to|for))\b/i,
  /\b(?:B2B|B2C|SMBs?|small\s+businesses|mid-?sized|enterprises?|fortune\s+500)\b/i,
];

/** Splits prose into sentences; keeps abbreviations like "Inc." mostly intact. */
export function splitSentences(text: string): string[] {
  return text
    .replace(/\s+/g, " ")
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"“(])/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Any of the cues, in one pattern (a text matches it when it matches one of them). */
const ANY_CUE = new RegExp(CUSTOMER_CUES.map((cue) => `(?:${cue.source})`).join("|"), "i");

export function customerSentences(description: string): string[] {
  // A cue found in a sentence is found in the text it came from (splitting only joins and trims
  // whitespace, which the cues match as \s+): a text without any is not split at all, as most are not.
  if (!ANY_CUE.test(description)) return [];
  return splitSentences(description).filter((sentence) => ANY_CUE.test(sentence));
}

/** The text embedded as the customer-base vector, or null when the organization has none. */
export function customerTextOf(org: { customer_description: string | null; description: string | null }): string | null {
  const explicit = org.customer_description?.trim();
  if (explicit) return explicit;
  const sentences = customerSentences(org.description ?? "");
  return sentences.length > 0 ? sentences.join(" ") : null;
}

/** The text embedded as the business-profile vector: name, description and category names. */
export function profileTextOf(
  org: { name: string; description: string | null; categories: readonly string[] },
  categoryName: (slug: string) => string,
): string {
  const parts = [org.name, org.description ?? ""];
  if (org.categories.length > 0) parts.push(`Categories: ${org.categories.map(categoryName).join(", ")}.`);
  return parts
    .filter((p) => p.trim().length > 0)
    .join(". ")
    .replace(/\.\.\s/g, ". ");
}

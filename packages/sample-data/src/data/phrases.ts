/**
 * Sentence templates shared by every category. Slots: {name}, {a_label} (label with its article),
 * {offering}, {noun}, {cap1}, {cap2}, {city}, {year}, {audience}, {audience2},
 * {goal}, {market}, {kind}, {offices}, {team}.
 *
 * Only the CUSTOMER_* templates may speak of customers: the other sentences
 * must not trip core's customer cues (`customerSentences`), so organizations
 * without a customer sentence really have none. The tests check this.
 */

/** Opening sentence: who the organization is and what it offers. */
export const INTRO_TEMPLATES = [
  "{name} {offering}.",
  "{name} {offering}.",
  "Founded in {year}, {name} {offering}.",
  "Based in {city}, {name} {offering}.",
  "{name} is {a_label} {kind} that {offering}.",
  "{name}, {a_label} {kind} from {city}, {offering}.",
] as const;

/** What the product does, with one or two capabilities. */
export const CAPABILITY_TEMPLATES = [
  "Its {noun} {cap1}.",
  "Its {noun} {cap1} and {cap2}.",
  "The {noun} {cap1}, and it {cap2}.",
  "Among other things, the {noun} {cap1}.",
] as const;

/** A second line of business, from a secondary category. */
export const SECONDARY_TEMPLATES = ["It also {offering}.", "The company also {offering}.", "Alongside that, it {offering}."] as const;

/** The sentence of the description naming the organization's customers. */
export const CUSTOMER_SENTENCE_TEMPLATES = [
  "Its customers are {audience}.",
  "{name} serves {audience}.",
  "It is used by {audience} to {goal}.",
  "{name} helps {audience} {goal}.",
  "Built for {audience}, it lets them {goal}.",
  "Its clients include {audience}.",
  "The company sells to {audience} who want to {goal}.",
] as const;

/** The separate `customer_description` field. */
export const CUSTOMER_DESCRIPTION_TEMPLATES = [
  "{audience}.",
  "{audience} and {audience2}.",
  "{audience} {market}.",
  "{audience} and {audience2}, mostly {market}.",
  "{audience} who want to {goal}.",
  "{audience} {market} looking to {goal}.",
  "Primarily {audience}; also {audience2} {market}.",
] as const;

/** Fills the optional {size} slot of an audience; empty means no qualifier. */
export const SIZE_QUALIFIERS = ["small", "mid-sized", "large", "fast-growing", "independent", "regional", "", "", ""] as const;

/** Sentences built from the organization's own figures. */
export const FACT_TEMPLATES = {
  offices: "Headquartered in {city}, it also has offices in {offices}.",
  longevity: "The company has been in business since {year}.",
  team: "A team of about {team} people works from {city}.",
  public: "The company's shares are publicly traded.",
  selfFunded: "The company has never raised outside capital.",
} as const;

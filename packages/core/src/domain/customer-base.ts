/**
 * How a customer-base search judges an organization. A `customer_description` the data states is
 * the best evidence of whom it serves; the sentences an extractor picked from the description are
 * weaker evidence (a few cue sentences, sometimes none of the customers at all), so they are
 * weighed together with the whole profile; an organization without customer text is judged by its
 * profile alone rather than left out (bench:quality measured both: docs/benchmarks.md).
 */

/** An organization's customer-base similarity from its cosines with the query, or undefined when it has neither vector. */
export function customerBaseSimilarity(explicitCustomerText: boolean, customer: number | undefined, profile: number | undefined): number | undefined {
  if (customer === undefined) return profile;
  if (explicitCustomerText || profile === undefined) return customer;
  return EXTRACTED_CUSTOMER_WEIGHT * customer + (1 - EXTRACTED_CUSTOMER_WEIGHT) * profile;
}

/** The weight of the customer vector against the profile vector when the customer text was extracted (or given without text). */
export const EXTRACTED_CUSTOMER_WEIGHT = 0.5;

/** Whether the data states the organization's customers (`customer_description`), rather than the extractor guessing them. */
export const hasExplicitCustomerText = (o: { customer_description: string | null }) => (o.customer_description?.trim().length ?? 0) > 0;

/**
 * The cosine a customer-base result reports (`cosine_similarity`, and what `min_similarity`
 * bounds): with its customer vector where it has one, else with its profile vector.
 */
export const reportedCustomerCosine = (customer: number | undefined, profile: number | undefined) => customer ?? profile;

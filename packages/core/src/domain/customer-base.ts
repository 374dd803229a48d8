/**
 * How a customer-base search judges an organization. Only an organization with a customer vector
 * is a result (API.md). A `customer_description` the data states is the best evidence of whom it
 * serves: its customer cosine alone. The sentences an extractor picked from the description are
 * weaker evidence, so they are weighed together with the whole profile (docs/benchmarks.md).
 */

/** An organization's customer-base similarity from its customer cosine and, for extracted customer text, its profile cosine. */
export function customerBaseSimilarity(explicitCustomerText: boolean, customer: number, profile: number | undefined): number {
  if (explicitCustomerText || profile === undefined) return customer;
  return EXTRACTED_CUSTOMER_WEIGHT * customer + (1 - EXTRACTED_CUSTOMER_WEIGHT) * profile;
}

/** The weight of the customer vector against the profile vector when the customer text was extracted (or given without text). */
export const EXTRACTED_CUSTOMER_WEIGHT = 0.5;

/** Whether the data states the organization's customers (`customer_description`), rather than the extractor guessing them. */
export const hasExplicitCustomerText = (o: { customer_description: string | null }) => (o.customer_description?.trim().length ?? 0) > 0;

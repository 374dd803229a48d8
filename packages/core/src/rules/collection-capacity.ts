/** The contract's limit on items in one collection; stores apply it in the step that writes items. */
import { OrgsimError } from "../errors";

export const MAX_ITEMS_PER_COLLECTION = 100_000;

export function assertCollectionCapacity(present: number, adding: number): void {
  if (present + adding > MAX_ITEMS_PER_COLLECTION) {
    throw new OrgsimError("CONFLICT", `A collection holds at most ${MAX_ITEMS_PER_COLLECTION} items; this one has ${present}, the request adds ${adding}`, {
      item_count: present,
      limit: MAX_ITEMS_PER_COLLECTION,
    });
  }
}

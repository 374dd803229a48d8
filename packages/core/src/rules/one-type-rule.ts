/**
 * The one-type rule: a collection holds one entity type, fixed by its first
 * item (or at creation) for the collection's life. Stores call this inside the
 * atomic step that writes items, so the check and the write cannot interleave.
 */
import type { EntityType } from "../domain/metrics";
import { OrgsimError } from "../errors";

/**
 * Returns the collection's type after adding items of `incoming` types, or
 * throws ENTITY_TYPE_MISMATCH naming both types and the failing indexes.
 */
export function assertItemTypes(collectionType: EntityType | null, incoming: readonly EntityType[]): EntityType {
  const expected = collectionType ?? incoming[0];
  if (expected === undefined) throw new Error("assertItemTypes needs at least one item");
  const failing = incoming.flatMap((type, index) => (type === expected ? [] : [index]));
  if (failing.length === 0) return expected;

  const offending = incoming[failing[0] as number] as EntityType;
  const message = collectionType
    ? `This collection holds ${collectionType} items; cannot add ${offending}`
    : `All items of one batch must share one entity type: the first is ${expected}, item ${failing[0]} is ${offending}`;
  throw new OrgsimError("ENTITY_TYPE_MISMATCH", message, {
    collection_entity_type: expected,
    item_entity_type: offending,
    failing_indexes: failing,
  });
}

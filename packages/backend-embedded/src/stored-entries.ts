/**
 * An organization as the memory index holds it (IndexEntry), read from its stored rows: its
 * document, from which the filter columns and words are taken as a write takes them, and its
 * vectors. A full load (sqlite-organization-store.ts) and a catch-up (organization-changes.ts) read
 * alike. An organization without a profile vector is not in the index.
 */
import { hasExplicitCustomerText, lexicalTextsOf, type Organization } from "@orgsim/core";
import { filterColumnsOf, type IndexEntry } from "./memory-index";

/** Each organization with its vectors, one row each; a query adds its WHERE and ORDER BY. */
export const STORED_ENTRIES_SQL = `SELECT o.id, o.doc, p.vector AS profile, c.vector AS customer
  FROM organizations o
  JOIN organization_vectors p ON p.org_row = o.row AND p.kind = 'profile'
  LEFT JOIN organization_vectors c ON c.org_row = o.row AND c.kind = 'customer'`;

/** One organization's stored vector of one kind, by its id: `(id, kind)`. */
export const STORED_VECTOR_SQL = "SELECT vector FROM organization_vectors WHERE org_row = (SELECT row FROM organizations WHERE id = ?) AND kind = ?";

export interface StoredEntryRow {
  id: number;
  doc: string;
  profile: Buffer;
  customer: Buffer | null;
}

export function storedEntry({ id, doc, profile, customer }: StoredEntryRow): IndexEntry {
  const organization = JSON.parse(doc) as Organization;
  return {
    id,
    columns: filterColumnsOf(organization),
    profile: fromBlob(profile),
    customer: customer ? fromBlob(customer) : null,
    texts: lexicalTextsOf(organization),
    customerStated: hasExplicitCustomerText(organization),
  };
}

/**
 * A Float32Array over a vector's blob, its raw Float32 bytes (little-endian on every platform Node
 * runs on); copied only when the Buffer is not 4-byte aligned.
 */
export const fromBlob = (blob: Buffer) =>
  blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4) : new Float32Array(new Uint8Array(blob).buffer);

/**
 * Opaque page cursors. A cursor carries the position and a fingerprint of the
 * query it belongs to, so it cannot resume a different query.
 */
import { createHash } from "node:crypto";
import { OrgsimError } from "../errors";

export function fingerprint(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("base64url").slice(0, 16);
}

export function encodeCursor(position: unknown, queryFingerprint: string): string {
  return Buffer.from(JSON.stringify({ p: position, q: queryFingerprint })).toString("base64url");
}

export function decodeCursor<T>(cursor: string, queryFingerprint: string, isPosition: (p: unknown) => p is T): T {
  let decoded: { p?: unknown; q?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid("it is not a cursor this service issued");
  }
  if (decoded?.q !== queryFingerprint) throw invalid("it belongs to a different query");
  if (!isPosition(decoded.p)) throw invalid("it is not a cursor this service issued");
  return decoded.p;
}

const invalid = (why: string) => OrgsimError.validation([{ path: ["cursor"], message: `invalid cursor: ${why}` }]);

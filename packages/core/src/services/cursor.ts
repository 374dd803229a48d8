/**
 * Opaque page cursors. A cursor carries the position and a fingerprint of the query
 * it belongs to (for collections: tenant and collection), signed with HMAC-SHA256, so
 * a caller can neither resume a different query nor edit the position or the scope.
 *
 * The signing secret is random per process unless the operator sets one
 * (ORGSIM_CURSOR_SECRET, through `setCursorSecret`): servers behind one load balancer
 * need the same secret, and cursors from before a restart stay valid only with it.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { OrgsimError } from "../errors";

let secret: Buffer = randomBytes(32);

/** Sets the secret cursors are signed with (at least 32 characters). */
export function setCursorSecret(value: string): void {
  if (value.length < 32) throw new Error("the cursor secret must be at least 32 characters");
  secret = Buffer.from(value, "utf8");
}

export function fingerprint(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("base64url").slice(0, 16);
}

const sign = (payload: string) => createHmac("sha256", secret).update(payload).digest().subarray(0, 16);

export function encodeCursor(position: unknown, queryFingerprint: string): string {
  const payload = Buffer.from(JSON.stringify({ p: position, q: queryFingerprint })).toString("base64url");
  return `${payload}.${sign(payload).toString("base64url")}`;
}

/** Two base64url parts as encodeCursor writes them: no padding, no other characters. */
const CURSOR_SHAPE = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/;

export function decodeCursor<T>(cursor: string, queryFingerprint: string, isPosition: (p: unknown) => p is T): T {
  const [, payload = "", signature = ""] = CURSOR_SHAPE.exec(cursor) ?? [];
  const given = Buffer.from(signature, "base64url");
  const expected = sign(payload);
  // Re-encoding must give the signature back: Node's decoder ignores the unused low bits of the last character.
  if (!payload || given.toString("base64url") !== signature || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid("it is not a cursor this service issued, or it was altered");
  }
  let decoded: { p?: unknown; q?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw invalid("it is not a cursor this service issued");
  }
  if (decoded?.q !== queryFingerprint) throw invalid("it belongs to a different query");
  if (!isPosition(decoded.p)) throw invalid("it is not a cursor this service issued");
  return decoded.p;
}

const invalid = (why: string) => OrgsimError.validation([{ path: ["cursor"], message: `invalid cursor: ${why}` }]);

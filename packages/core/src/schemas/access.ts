/** Access: the scopes an API key can carry, tenants, and what callers see of a key. */
import { z } from "zod";

/** The contract's scopes; each operation needs one (see the router's `scope` meta and the MCP tools); metrics:read is /metrics from off the machine. */
export const SCOPES = ["search:read", "collections:read", "collections:write", "organizations:write", "metrics:read"] as const;
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

/** Tenant names: short, printable, safe in ids, logs and index names. */
export const TenantName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "a tenant is 1–64 letters, digits, '_', '.' or '-', starting with a letter or digit");

/** A key as listed: everything but its secret (which is never stored, only its hash). */
export const ApiKeyInfo = z.object({
  id: z.string(),
  tenant: TenantName,
  scopes: z.array(Scope),
  name: z.string().nullable(),
  /** Requests a minute this key may make; null: the server's default. */
  rate_limit_per_minute: z.number().int().positive().nullable(),
  created_at: z.string(),
  revoked_at: z.string().nullable(),
});
export type ApiKeyInfo = z.infer<typeof ApiKeyInfo>;

export const NewApiKeyInput = z.strictObject({
  tenant: TenantName,
  scopes: z.array(Scope).min(1, "give at least one scope"),
  name: z.string().trim().min(1).max(200).optional(),
  rate_limit_per_minute: z.number().int().min(1).max(1_000_000).optional(),
});
export type NewApiKeyInput = z.input<typeof NewApiKeyInput>;

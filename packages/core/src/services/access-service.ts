/**
 * API keys: creates them (the secret is shown once and only its hash is stored),
 * lists and revokes them, and turns a bearer token into the caller's principal.
 *
 * A key is `osk_<id>_<secret>`: the id finds the stored record, the 256-bit random
 * secret is checked against its SHA-256 in constant time. A fast hash is enough for
 * random secrets (a slow password hash protects guessable passwords, not these).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { OrgsimError } from "../errors";
import type { ApiKeyStore, StoredApiKey } from "../ports/api-key-store";
import { type ApiKeyInfo, NewApiKeyInput, SCOPES, type Scope } from "../schemas/access";

/** Who is calling: a key's tenant and scopes, or the open server's local user. */
export interface Principal {
  tenant: string;
  scopes: readonly Scope[];
  /** null for the open (no keys) server. */
  keyId: string | null;
  /** null: the server's default. */
  rateLimitPerMinute: number | null;
}

/**
 * How a server admits callers without a key: "keys" refuses them (keys are active), "revoked"
 * refuses them too (every key was revoked), "open" serves them as the local user.
 */
export type AccessMode = "keys" | "revoked" | "open";

/** The tenant of an open server (no keys configured), and of local tools such as the stdio MCP server. */
export const DEFAULT_TENANT = "default";

export const openPrincipal = (): Principal => ({ tenant: DEFAULT_TENANT, scopes: SCOPES, keyId: null, rateLimitPerMinute: null });

const TOKEN = /^osk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const hashOf = (secret: string) => createHash("sha256").update(secret).digest("hex");
const infoOf = ({ secret_hash: _, ...info }: StoredApiKey): ApiKeyInfo => info;

export class AccessService {
  private readonly cache = new Map<string, { key: StoredApiKey | null; at: number }>();
  private counts: { active: number; all: number; at: number } | null = null;
  private counting: Promise<{ active: number; all: number; at: number }> | undefined;

  /** `cacheMs`: how long a looked-up key (and the count of active keys) is reused; a revocation takes effect within it. */
  constructor(
    private readonly store: ApiKeyStore,
    private readonly cacheMs = 5_000,
  ) {}

  /** Creates a key; `token` is the only time its secret exists outside the caller. */
  async create(input: NewApiKeyInput): Promise<{ key: ApiKeyInfo; token: string }> {
    const parsed = NewApiKeyInput.parse(input);
    const id = randomBytes(8).toString("hex");
    const secret = randomBytes(32).toString("base64url");
    const key: StoredApiKey = {
      id: `key_${id}`,
      tenant: parsed.tenant,
      scopes: [...new Set(parsed.scopes)].sort((a, b) => SCOPES.indexOf(a) - SCOPES.indexOf(b)),
      name: parsed.name ?? null,
      rate_limit_per_minute: parsed.rate_limit_per_minute ?? null,
      created_at: new Date().toISOString(),
      revoked_at: null,
      secret_hash: hashOf(secret),
    };
    await this.store.insert(key);
    this.counts = null;
    return { key: infoOf(key), token: `osk_${id}_${secret}` };
  }

  async list(): Promise<ApiKeyInfo[]> {
    return (await this.store.list()).map(infoOf);
  }

  async revoke(id: string): Promise<ApiKeyInfo> {
    const key = await this.store.revoke(id, new Date().toISOString());
    if (!key) throw OrgsimError.notFound("API key", id);
    this.cache.delete(id);
    this.counts = null;
    return infoOf(key);
  }

  /** Whether any key is active. */
  async hasActiveKeys(): Promise<boolean> {
    return (await this.keyCounts()).active > 0;
  }

  /**
   * Whether callers without a key are served. A store that never held a key serves them (a new
   * local install). Once it held one, revoking the last key must not silently open the server:
   * keys stay required unless the operator started it open on purpose (`openOnPurpose`).
   * Revoked keys are never deleted, so this holds across restarts.
   */
  async mode(openOnPurpose: boolean): Promise<AccessMode> {
    const { active, all } = await this.keyCounts();
    if (active > 0) return "keys";
    return all > 0 && !openOnPurpose ? "revoked" : "open";
  }

  private async keyCounts(): Promise<{ active: number; all: number }> {
    const now = Date.now();
    if (this.counts && now - this.counts.at <= this.cacheMs) return this.counts;
    // Every request looks: those that arrive while the counts are re-read share one read.
    this.counting ??= Promise.all([this.store.countActive(), this.store.countAll()])
      .then(([active, all]) => (this.counts = { active, all, at: now }))
      .finally(() => {
        this.counting = undefined;
      });
    return this.counting;
  }

  /** The principal of a bearer token, or UNAUTHORIZED. */
  async authenticate(token: string): Promise<Principal> {
    const match = TOKEN.exec(token);
    if (!match) throw unauthorized("Invalid API key: it is not an orgsim key (osk_…)");
    const key = await this.lookup(`key_${match[1]}`);
    const given = Buffer.from(hashOf(match[2] as string), "hex");
    if (!key || !timingSafeEqual(given, Buffer.from(key.secret_hash, "hex"))) throw unauthorized("Invalid API key");
    if (key.revoked_at) throw unauthorized(`API key ${key.id} was revoked`);
    return { tenant: key.tenant, scopes: key.scopes, keyId: key.id, rateLimitPerMinute: key.rate_limit_per_minute };
  }

  private async lookup(id: string): Promise<StoredApiKey | null> {
    const now = Date.now();
    const cached = this.cache.get(id);
    if (cached && now - cached.at <= this.cacheMs) return cached.key;
    const key = await this.store.get(id);
    // Bounded: unknown ids sent by a caller must not grow memory without end.
    if (this.cache.size >= 10_000) this.cache.clear();
    this.cache.set(id, { key, at: now });
    return key;
  }
}

export const unauthorized = (message: string) => new OrgsimError("UNAUTHORIZED", message);

/** FORBIDDEN unless the principal holds `scope`. */
export function assertScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    throw new OrgsimError("FORBIDDEN", `This API key lacks the scope ${scope}`, { required_scope: scope });
  }
}

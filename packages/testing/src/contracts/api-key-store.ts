/** The `ApiKeyStore` contract, exercised through the core's AccessService (what the server uses). */
import { AccessService, type ApiKeyStore } from "@orgsim/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

export interface OpenedApiKeyStore {
  store: ApiKeyStore;
  /** Everything the backend stored for keys, as text (to check no secret is in it). */
  rawContents(): Promise<string>;
  cleanup(): Promise<void>;
}

export function describeApiKeyStoreContract(backend: string, open: () => Promise<OpenedApiKeyStore>): void {
  describe(`${backend}: the API key store contract`, () => {
    let opened: OpenedApiKeyStore;
    // No caching: every call reads the store, so the store is what is tested.
    let access: AccessService;
    beforeEach(async () => {
      opened = await open();
      access = new AccessService(opened.store, 0);
    });
    afterEach(() => opened.cleanup());

    it("creates a key whose token authenticates as its tenant and scopes, and stores only a hash", async () => {
      expect(await access.hasActiveKeys()).toBe(false);
      expect(await access.mode(false)).toBe("open");
      const { key, token } = await access.create({ tenant: "acme", scopes: ["collections:write", "search:read", "search:read"], name: "ci" });
      expect(token).toMatch(/^osk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(key).toMatchObject({ tenant: "acme", scopes: ["search:read", "collections:write"], name: "ci", revoked_at: null, rate_limit_per_minute: null });
      expect(key).not.toHaveProperty("secret_hash");
      expect(await access.authenticate(token)).toEqual({
        tenant: "acme",
        scopes: ["search:read", "collections:write"],
        keyId: key.id,
        rateLimitPerMinute: null,
      });
      expect(await access.hasActiveKeys()).toBe(true);
      expect(await access.mode(true)).toBe("keys");
      const secret = token.split("_").slice(2).join("_");
      expect(await opened.rawContents()).not.toContain(secret);
    });

    it("refuses unknown, malformed and altered tokens with UNAUTHORIZED", async () => {
      const { token } = await access.create({ tenant: "acme", scopes: ["search:read"] });
      const altered = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
      const unknown = `osk_0123456789abcdef_${token.slice(-43)}`;
      for (const bad of [altered, unknown, "osk_", "Bearer x", "", `${token}x`]) {
        await expect(access.authenticate(bad)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
      }
    });

    it("lists keys oldest first without secrets, and revokes them for good", async () => {
      const first = await access.create({ tenant: "acme", scopes: ["search:read"], rate_limit_per_minute: 30 });
      await new Promise((resolve) => setTimeout(resolve, 5)); // a later created_at
      const second = await access.create({ tenant: "globex", scopes: ["collections:read"] });
      const listed = await access.list();
      expect(listed.map((k) => k.id)).toEqual([first.key.id, second.key.id]);
      expect(listed[0]).toMatchObject({ rate_limit_per_minute: 30 });
      expect(JSON.stringify(listed)).not.toContain("secret");

      const revoked = await access.revoke(first.key.id);
      expect(revoked.revoked_at).not.toBeNull();
      await expect(access.authenticate(first.token)).rejects.toMatchObject({ code: "UNAUTHORIZED", message: expect.stringMatching(/revoked/) });
      expect((await access.revoke(first.key.id)).revoked_at).toBe(revoked.revoked_at);
      expect((await access.authenticate(second.token)).tenant).toBe("globex");
      await access.revoke(second.key.id);
      expect(await access.hasActiveKeys()).toBe(false);
      // Revoked keys stay in the store: it remembers that keys were required.
      expect(await opened.store.countAll()).toBe(2);
      expect(await access.mode(false)).toBe("revoked");
      expect(await access.mode(true)).toBe("open");
      await expect(access.revoke("key_nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
    });

    it("refuses bad key requests naming what is wrong", async () => {
      await expect(access.create({ tenant: "a b", scopes: ["search:read"] })).rejects.toThrow(/tenant/);
      await expect(access.create({ tenant: "acme", scopes: [] })).rejects.toThrow(/at least one scope/);
      await expect(access.create({ tenant: "acme", scopes: ["admin" as never] })).rejects.toThrow();
      expect(await access.list()).toEqual([]);
    });
  });
}

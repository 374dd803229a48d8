/** ApiKeyStore on SQLite: the `api_keys` table of the embedded backend's file. */
import type { ApiKeyStore, Scope, StoredApiKey } from "@orgsim/core";
import type { Db } from "./database";
import { guarded } from "./errors";

interface KeyRow extends Omit<StoredApiKey, "scopes"> {
  scopes: string;
}

const toKey = (row: KeyRow): StoredApiKey => ({ ...row, scopes: JSON.parse(row.scopes) as Scope[] });

export class SqliteApiKeyStore implements ApiKeyStore {
  private readonly sql;

  constructor(db: Db) {
    this.sql = {
      insert: db.prepare(
        "INSERT INTO api_keys (id, tenant, scopes, name, rate_limit_per_minute, secret_hash, created_at, revoked_at) VALUES (@id, @tenant, @scopes, @name, @rate_limit_per_minute, @secret_hash, @created_at, @revoked_at)",
      ),
      get: db.prepare<[string], KeyRow>("SELECT * FROM api_keys WHERE id = ?"),
      list: db.prepare<[], KeyRow>("SELECT * FROM api_keys ORDER BY created_at, id"),
      revoke: db.prepare<[string, string]>("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
      countActive: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL"),
      countAll: db.prepare<[], { n: number }>("SELECT count(*) AS n FROM api_keys"),
    };
  }

  async insert(key: StoredApiKey): Promise<void> {
    return guarded(async () => {
      this.sql.insert.run({ ...key, scopes: JSON.stringify(key.scopes) });
    });
  }

  async get(id: string): Promise<StoredApiKey | null> {
    return guarded(async () => {
      const row = this.sql.get.get(id);
      return row ? toKey(row) : null;
    });
  }

  async list(): Promise<StoredApiKey[]> {
    return guarded(() => this.sql.list.all().map(toKey));
  }

  async revoke(id: string, at: string): Promise<StoredApiKey | null> {
    return guarded(async () => {
      this.sql.revoke.run(at, id);
      return this.get(id);
    });
  }

  async countActive(): Promise<number> {
    return guarded(() => this.sql.countActive.get()?.n ?? 0);
  }

  async countAll(): Promise<number> {
    return guarded(() => this.sql.countAll.get()?.n ?? 0);
  }
}

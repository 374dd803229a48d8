/** Port: where API keys live, hashed. The key's secret never reaches a store. */
import type { ApiKeyInfo } from "../schemas/access";

export interface StoredApiKey extends ApiKeyInfo {
  /** SHA-256 of the key's secret, hex. */
  secret_hash: string;
}

export interface ApiKeyStore {
  insert(key: StoredApiKey): Promise<void>;
  get(id: string): Promise<StoredApiKey | null>;
  /** Every key, revoked ones too, oldest first. */
  list(): Promise<StoredApiKey[]>;
  /** Marks the key revoked (keeps the first revocation time); null when there is no such key. */
  revoke(id: string, at: string): Promise<StoredApiKey | null>;
  /** How many keys are not revoked. */
  countActive(): Promise<number>;
  /** How many keys were ever created, revoked ones too (they are never deleted). */
  countAll(): Promise<number>;
}

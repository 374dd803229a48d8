/** The embedded default backend: organizations and collections in one SQLite file, in process. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "./database";
import { SqliteApiKeyStore } from "./sqlite-api-key-store";
import { SqliteCollectionStore } from "./sqlite-collection-store";
import { SqliteOrganizationStore, type VectorIndexOptions } from "./sqlite-organization-store";

export { MIGRATIONS, openDatabase } from "./database";
export { guarded, unavailableOf } from "./errors";
export { SqliteApiKeyStore } from "./sqlite-api-key-store";
export { SqliteCollectionStore } from "./sqlite-collection-store";
export { SqliteOrganizationStore, type VectorIndexOptions, type VectorIndexStatus } from "./sqlite-organization-store";
export { GRAPH_OPTIONS } from "./graph-shard";
export { STORED_VECTOR_SQL } from "./stored-entries";
export { VectorGraph } from "./vector-graph";

export interface EmbeddedBackend {
  organizations: SqliteOrganizationStore;
  collections: SqliteCollectionStore;
  apiKeys: SqliteApiKeyStore;
  /** The SQLite file. */
  file: string;
  close(): Promise<void>;
}

/**
 * Opens (creating) `<dataDir>/orgsim.sqlite`; both stores share its one connection. The vector
 * graphs are saved beside it (`orgsim.*.usearch`, `orgsim.vectors.json`).
 */
export function openEmbeddedBackend(options: { dataDir: string; vectorIndex?: Omit<VectorIndexOptions, "dir"> }): EmbeddedBackend {
  mkdirSync(options.dataDir, { recursive: true });
  const file = join(options.dataDir, "orgsim.sqlite");
  const db = openDatabase(file);
  // The connection closes when both stores are closed (or close() is called).
  let users = 2;
  const release = () => {
    if (--users <= 0 && db.open) db.close();
  };
  try {
    // Busy, full or closed files answer BACKEND_UNAVAILABLE: each store method runs its work in `guarded` (errors.ts).
    const organizations = new SqliteOrganizationStore(db, release, { ...options.vectorIndex, dir: options.dataDir });
    const collections = new SqliteCollectionStore(db, release);
    return {
      organizations,
      collections,
      apiKeys: new SqliteApiKeyStore(db),
      file,
      async close() {
        // The organization store first: it saves its vector graphs before the connection closes.
        await organizations.close();
        users = 0;
        if (db.open) db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The embedded backend's one SQLite file: connection settings and schema migrations. */
import { domainKey, nameKey } from "@orgsim/core";
import Database from "better-sqlite3";

export type Db = Database.Database;

/**
 * Schema versions, applied in order; `PRAGMA user_version` records how many ran: SQL, or a
 * function for what SQL cannot compute. Never edit a shipped entry: append a new one.
 */
export const MIGRATIONS: readonly (string | ((db: Db) => void))[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

  -- One row per organization: the scalar filter columns, then the document as returned
  -- (last, so reading the columns at load does not walk the document's overflow pages).
  CREATE TABLE organizations (
    id INTEGER PRIMARY KEY,
    hq_country TEXT,
    hq_subdivision TEXT,
    employee_count INTEGER,
    employee_range TEXT,
    founded_year INTEGER,
    last_round_stage TEXT,
    last_round_date TEXT,
    doc TEXT NOT NULL
  );
  -- Every location incl. the HQ, for the any-office location filter.
  CREATE TABLE organization_locations (
    org_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    is_hq INTEGER NOT NULL,
    country_code TEXT,
    subdivision_code TEXT
  );
  CREATE INDEX organization_locations_by_org ON organization_locations(org_id);
  CREATE TABLE organization_categories (
    org_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    slug TEXT NOT NULL,
    PRIMARY KEY (org_id, slug)
  ) WITHOUT ROWID;
  -- Float32 little-endian vectors; each row names the model that produced it.
  CREATE TABLE organization_vectors (
    org_id INTEGER NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('profile', 'customer')),
    model_id TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (org_id, kind)
  );

  CREATE TABLE collections (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT,
    entity_type TEXT,
    item_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX collections_page ON collections(tenant, created_at, id);
  CREATE TABLE collection_items (
    id TEXT PRIMARY KEY,
    collection_id TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    entity_type TEXT NOT NULL,
    entity_id TEXT NOT NULL,
    entity TEXT,
    notes TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (collection_id, entity_id)
  );
  CREATE INDEX collection_items_page ON collection_items(collection_id, created_at, id);
  `,
  `
  -- API keys: the secret's SHA-256 only, never the secret.
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    scopes TEXT NOT NULL,
    name TEXT,
    rate_limit_per_minute INTEGER,
    secret_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  `,
  `
  -- Which organizations each write changed (generation = the meta organizations_generation it
  -- made): how another connection catches up without reloading everything (organization-changes.ts).
  CREATE TABLE organization_changes (generation INTEGER NOT NULL, org_id INTEGER NOT NULL);
  CREATE INDEX organization_changes_by_generation ON organization_changes(generation);
  `,
  addLookupKeys,
  `
  -- The store writes the name index itself, one statement per write (sqlite-organization-store.ts):
  -- through these triggers FTS5 flushed its pending terms at every organization inserted (each
  -- trigger statement is a savepoint), which made the name index a third of a bulk write's time.
  DROP TRIGGER organization_names_insert;
  DROP TRIGGER organization_names_delete;
  `,
  `
  -- Rows in the order written, whatever the ids: an import's ids are hashes (the importer's), and a
  -- table and indexes keyed by them took each write's rows all over the file, so every commit
  -- rewrote about a page an organization in each (an import of 100k with hashed ids wrote 126 KiB
  -- an organization, at 3,228 to 5,063 a second; docs/benchmarks.md). Now the documents and
  -- vectors are appended, and only the id's index (and the lookup keys' ones) take ids at random.
  CREATE TABLE organizations_by_row (
    row INTEGER PRIMARY KEY,
    id INTEGER NOT NULL UNIQUE,
    hq_country TEXT,
    hq_subdivision TEXT,
    employee_count INTEGER,
    employee_range TEXT,
    founded_year INTEGER,
    last_round_stage TEXT,
    last_round_date TEXT,
    doc TEXT NOT NULL,
    name_key TEXT NOT NULL DEFAULT '',
    domain_key TEXT
  );
  INSERT INTO organizations_by_row (id, hq_country, hq_subdivision, employee_count, employee_range, founded_year, last_round_stage, last_round_date, doc, name_key, domain_key)
    SELECT id, hq_country, hq_subdivision, employee_count, employee_range, founded_year, last_round_stage, last_round_date, doc, name_key, domain_key
    FROM organizations ORDER BY id;
  CREATE TABLE organization_vectors_by_row (
    org_row INTEGER NOT NULL REFERENCES organizations_by_row(row) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('profile', 'customer')),
    model_id TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (org_row, kind)
  );
  INSERT INTO organization_vectors_by_row (org_row, kind, model_id, vector)
    SELECT o.row, v.kind, v.model_id, v.vector FROM organization_vectors v JOIN organizations_by_row o ON o.id = v.org_id ORDER BY o.row, v.kind;
  -- The locations and categories were only read to load the memory index, which takes them from
  -- the documents now, as it does when it catches up (organization-changes.ts).
  DROP TABLE organization_locations;
  DROP TABLE organization_categories;
  DROP TABLE organization_vectors;
  DROP TABLE organizations;
  -- Renaming a table also renames it where other tables reference it.
  ALTER TABLE organizations_by_row RENAME TO organizations;
  ALTER TABLE organization_vectors_by_row RENAME TO organization_vectors;
  CREATE INDEX organizations_by_name_key ON organizations(name_key, id);
  CREATE INDEX organizations_by_domain_key ON organizations(domain_key, id);
  -- The name index keeps the organization id as its rowid (a lookup's tiers are by id), but no copy
  -- of the names (they are the organizations' name_key) nor their lengths (lookups do not rank):
  -- two tables fewer that an id's write goes into at random. A write removes a name with FTS5's
  -- 'delete' command, while the organization's row still holds it.
  DROP TABLE organization_names;
  CREATE VIRTUAL TABLE organization_names USING fts5(name_key, content = 'organizations', content_rowid = 'id', columnsize = 0,
    tokenize = 'unicode61 remove_diacritics 0', prefix = '1 2 3');
  INSERT INTO organization_names (organization_names) VALUES ('rebuild');
  `,
  `
  -- The domain index without the organizations that have no domain: a lookup by domain never asks
  -- for NULL, and those rows, in id order, took each write's rows all over the index. An import of
  -- 1M bench organizations (most without a domain) wrote 27 % fewer bytes and ran 13 % faster
  -- (docs/benchmarks.md).
  DROP INDEX organizations_by_domain_key;
  CREATE INDEX organizations_by_domain_key ON organizations(domain_key, id) WHERE domain_key IS NOT NULL;
  `,
];

/**
 * The lookup keys (core's lookup-keys.ts) of GET /organizations: the name's words and the domain's
 * host as columns with indexes, and the name's words in an FTS5 table (rowid = organization id)
 * for word and word-prefix matching, kept in step with the organizations table by triggers (until
 * migration 5; since, by the store's writes).
 */
function addLookupKeys(db: Db): void {
  db.exec(`
    ALTER TABLE organizations ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
    ALTER TABLE organizations ADD COLUMN domain_key TEXT;
    CREATE INDEX organizations_by_name_key ON organizations(name_key, id);
    CREATE INDEX organizations_by_domain_key ON organizations(domain_key, id);
    -- Prefix indexes of 1 to 3 characters keep short type-ahead prefixes fast.
    CREATE VIRTUAL TABLE organization_names USING fts5(name_key, tokenize = 'unicode61 remove_diacritics 0', prefix = '1 2 3');
    CREATE TRIGGER organization_names_insert AFTER INSERT ON organizations
      BEGIN INSERT INTO organization_names (rowid, name_key) VALUES (new.id, new.name_key); END;
    CREATE TRIGGER organization_names_delete AFTER DELETE ON organizations
      BEGIN DELETE FROM organization_names WHERE rowid = old.id; END;
  `);
  const update = db.prepare("UPDATE organizations SET name_key = ?, domain_key = ? WHERE id = ?");
  const rows = db.prepare<[], [number, string, string | null]>("SELECT id, doc ->> '$.name', doc ->> '$.domain' FROM organizations").raw();
  for (const [id, name, domain] of rows.all()) update.run(nameKey(name ?? ""), domain ? domainKey(domain) : null, id);
  db.exec("INSERT INTO organization_names (rowid, name_key) SELECT id, name_key FROM organizations");
}

/** Opens (creating, with 8 KiB pages) the file with WAL and CONNECTION_PRAGMAS, and brings its schema up to date. */
export function openDatabase(file: string): Db {
  // Processes opening a new file at once can meet SQLITE_BUSY where SQLite does not wait (switching
  // the file to WAL): the loser opens again, and then finds the schema made.
  for (let attempt = 1; ; attempt++) {
    try {
      return openOnce(file);
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || attempt === OPEN_ATTEMPTS) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50 * attempt);
    }
  }
}

const OPEN_ATTEMPTS = 5;

/** What every connection that writes sets: the store's own and the write thread's (write-thread.ts, which adds to them). */
export const CONNECTION_PRAGMAS = ["synchronous = NORMAL", "foreign_keys = ON"] as const;

/** The page size of a new file. */
export const PAGE_BYTES = 8192;

function openOnce(file: string): Db {
  // `timeout` is SQLite's busy timeout: writers from other connections wait instead of failing.
  const db = new Database(file, { timeout: 10_000 });
  try {
    // Only a new file takes it (an existing one keeps its page size). A 4 KiB page holds two
    // vectors of 384 floats and leaves a quarter of itself empty: with 8 KiB pages the file of
    // 100k bench organizations was 15 % smaller (399 against 471 MB), which an import writes
    // twice (WAL, then checkpoint), and the import 3 to 6 % faster (docs/benchmarks.md).
    db.pragma(`page_size = ${PAGE_BYTES}`);
    db.pragma("journal_mode = WAL");
    for (const pragma of CONNECTION_PRAGMAS) db.pragma(pragma);
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

function migrate(db: Db): void {
  const version = () => db.pragma("user_version", { simple: true }) as number;
  if (version() > MIGRATIONS.length) {
    throw new Error(`${db.name} has schema version ${version()}, newer than this orgsim (${MIGRATIONS.length}); upgrade orgsim`);
  }
  while (version() < MIGRATIONS.length) {
    // IMMEDIATE and re-read inside: two processes opening a new file at once migrate it once.
    db.transaction(() => {
      const current = version();
      if (current >= MIGRATIONS.length) return;
      const migration = MIGRATIONS[current] as string | ((db: Db) => void);
      if (typeof migration === "string") db.exec(migration);
      else migration(db);
      db.pragma(`user_version = ${current + 1}`);
    }).immediate();
  }
}

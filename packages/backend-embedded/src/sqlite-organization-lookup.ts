/**
 * GET /organizations in SQLite: the tiers of the core's LookupTiers from the name_key and
 * domain_key columns (indexed) and the organization_names FTS5 table (database.ts, migration 4).
 * Every tier stops at `size` rows, read in its order from an index, never sorted whole.
 */
import type { LookupQuery, LookupTiers } from "@orgsim/core";
import type { Db } from "./database";

/** Above every character a name key holds: the end of a prefix range on name_key. */
const AFTER_ANY = "\u{10FFFF}";

const wordsSql = (domain: boolean) =>
  `SELECT rowid FROM organization_names WHERE organization_names MATCH @match
   ${domain ? "AND rowid IN (SELECT id FROM organizations WHERE domain_key = @domain)" : ""} ORDER BY rowid LIMIT @size`;

/** Each tier's statement. A domain is compared with `=`, which lets SQLite read the domain index: it holds only organizations with a domain (migration 7). */
export const LOOKUP_SQL = {
  namePrefix: "SELECT id FROM organizations WHERE name_key >= @from AND name_key < @to ORDER BY name_key, id LIMIT @size",
  namePrefixOfDomain: "SELECT id FROM organizations WHERE domain_key = @domain AND name_key >= @from AND name_key < @to ORDER BY name_key, id LIMIT @size",
  words: wordsSql(false),
  wordsOfDomain: wordsSql(true),
  domain: "SELECT id FROM organizations WHERE domain_key = @domain ORDER BY id LIMIT @size",
} as const;

type Range = { from: string; to: string };
type Match = { match: string };

export class SqliteOrganizationLookup {
  private readonly sql;

  constructor(db: Db) {
    this.sql = {
      namePrefix: db.prepare<Range & { size: number }, number>(LOOKUP_SQL.namePrefix).pluck(),
      namePrefixOfDomain: db.prepare<Range & { domain: string; size: number }, number>(LOOKUP_SQL.namePrefixOfDomain).pluck(),
      words: db.prepare<Match & { size: number }, number>(LOOKUP_SQL.words).pluck(),
      wordsOfDomain: db.prepare<Match & { domain: string; size: number }, number>(LOOKUP_SQL.wordsOfDomain).pluck(),
      domain: db.prepare<{ domain: string; size: number }, number>(LOOKUP_SQL.domain).pluck(),
    };
  }

  lookUp({ words, domain, size }: LookupQuery): LookupTiers {
    if (words.length === 0) return { namePrefix: [], allWords: [], wordPrefixes: domain ? this.sql.domain.all({ domain, size }) : [] };
    const from = words.join(" ");
    const range = { from, to: from + AFTER_ANY, size };
    const match = (prefix: boolean) => ({ match: ftsQuery(words, prefix), size });
    return domain
      ? {
          namePrefix: this.sql.namePrefixOfDomain.all({ ...range, domain }),
          allWords: this.sql.wordsOfDomain.all({ ...match(false), domain }),
          wordPrefixes: this.sql.wordsOfDomain.all({ ...match(true), domain }),
        }
      : {
          namePrefix: this.sql.namePrefix.all(range),
          allWords: this.sql.words.all(match(false)),
          wordPrefixes: this.sql.words.all(match(true)),
        };
  }
}

/** Every word as an FTS5 string (letters and digits only, so quoting is enough), `*` for a prefix. */
const ftsQuery = (words: string[], prefix: boolean) => words.map((w) => `"${w}"${prefix ? "*" : ""}`).join(" ");

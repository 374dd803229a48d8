/**
 * Search latency of the embedded store, and the measurement behind its design
 * choice: evaluate filters in memory over typed-array columns, or in SQL
 * (indexed) returning candidate ids. Both rank the same candidates the same way.
 *
 *   pnpm --filter @orgsim/backend-embedded bench      (or: npx tsx bench/search-latency.ts [sizes...])
 *
 * Synthetic organizations (test/synthetic.ts), 384-d random unit vectors.
 */
import type { OrganizationFilter, VectorKind } from "@orgsim/core";
import type { Db } from "../src/database";
import { openEmbeddedBackend } from "../src/index";
import { filterColumnsOf, MemoryIndex } from "../src/memory-index";
import { FilteredRows } from "../src/filtered-rows";
import { randomRecords, rng, unitVector } from "@orgsim/testing";
import { tempDir } from "../test/temp-dir";

const DIM = 384;
const MODEL = { modelId: "bench-model", dimension: DIM };
const SIZES = process.argv.slice(2).map(Number).filter(Boolean);
const PAGE = { offset: 0, size: 11 }; // limit 10, plus the one extra hit the search service asks for
const RANK = { ...PAGE, excludedIds: new Set<number>() };

const location = (countries: string[], subdivisions: string[], hqOnly = true) => ({ location: { countries, subdivisions, hqOnly } });
const SCENARIOS: [string, VectorKind, OrganizationFilter][] = [
  ["unfiltered", "profile", {}],
  ["unfiltered, customer vectors", "customer", {}],
  ["HQ country (broad)", "profile", location(["US"], [])],
  ["any office in JP (hq_only=false)", "profile", location(["JP"], [], false)],
  ["size bucket + founded >= 2000", "profile", { employeeRanges: ["51-200", "201-500"], foundedYearMin: 2000 }],
  ["category + stage (restrictive)", "profile", { categories: ["payments"], fundingStages: ["seed"] }],
  [
    "subdivision + category + date (very restrictive)",
    "profile",
    { ...location([], ["JP-13"]), categories: ["payments", "banking"], lastFundingFrom: "2020-01-01" },
  ],
];

/** The SQL alternative: candidate ids from an indexed query (the bench adds the indexes it needs). */
function sqlCandidates(db: Db, f: OrganizationFilter): number[] | null {
  const where: string[] = [];
  const args: unknown[] = [];
  const list = (values: readonly unknown[]) => {
    args.push(JSON.stringify(values));
    return "(SELECT value FROM json_each(?))";
  };
  if (f.location) {
    const { countries, subdivisions, hqOnly } = f.location;
    if (hqOnly) where.push(`(hq_country IN ${list(countries)} OR hq_subdivision IN ${list(subdivisions)})`);
    else where.push(`id IN (SELECT org_id FROM bench_locations WHERE country_code IN ${list(countries)} OR subdivision_code IN ${list(subdivisions)})`);
  }
  if (f.employeeRanges) where.push(`employee_range IN ${list(f.employeeRanges)}`);
  if (f.fundingStages) where.push(`last_round_stage IN ${list(f.fundingStages)}`);
  if (f.categories) where.push(`id IN (SELECT org_id FROM bench_categories WHERE slug IN ${list(f.categories)})`);
  for (const [column, op, value] of [
    ["employee_count", ">=", f.employeesMin],
    ["employee_count", "<=", f.employeesMax],
    ["founded_year", ">=", f.foundedYearMin],
    ["founded_year", "<=", f.foundedYearMax],
    ["last_round_date", ">=", f.lastFundingFrom],
    ["last_round_date", "<=", f.lastFundingTo],
  ] as const) {
    if (value !== undefined) {
      where.push(`${column} ${op} ?`);
      args.push(value);
    }
  }
  if (f.excludeIds) where.push(`id NOT IN ${list(f.excludeIds)}`);
  if (where.length === 0) return null;
  return db
    .prepare(`SELECT id FROM organizations WHERE ${where.join(" AND ")}`)
    .pluck()
    .all(...args) as number[];
}

function percentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
  return { p50: at(0.5), p95: at(0.95) };
}

async function time(runs: number, fn: (i: number) => unknown | Promise<unknown>) {
  for (let i = 0; i < 5; i++) await fn(i); // warm up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn(i);
    samples.push(performance.now() - started);
  }
  return percentiles(samples);
}

const ms = (value: number) => value.toFixed(2).padStart(7);

async function bench(count: number) {
  const dir = tempDir();
  try {
    console.log(`\n## ${count.toLocaleString("en")} organizations, ${DIM}-d`);
    let started = performance.now();
    const records = randomRecords(count, DIM, 2024);
    console.log(`generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    let backend = openEmbeddedBackend({ dataDir: dir.path });
    started = performance.now();
    for (let i = 0; i < records.length; i += 1000) await backend.organizations.upsert(records.slice(i, i + 1000), MODEL);
    const upsertS = (performance.now() - started) / 1000;
    console.log(`upserted in ${upsertS.toFixed(1)} s (${Math.round(count / upsertS).toLocaleString("en")} orgs/s)`);
    await backend.close();
    started = performance.now();
    backend = openEmbeddedBackend({ dataDir: dir.path });
    console.log(`reopened (index loaded from SQLite) in ${((performance.now() - started) / 1000).toFixed(2)} s`);

    // The same index the store builds, held here so both strategies rank identical candidates.
    const index = new MemoryIndex(DIM);
    for (const r of records) index.put(r.organization.id, filterColumnsOf(r.organization), r.profileVector, r.customerVector);
    // A second connection with the tables and indexes SQL filtering would need: SQL's best case.
    // (The store keeps no locations or categories table since migration 6: they are made here from the documents.)
    const { default: Database } = await import("better-sqlite3");
    const db = new Database(backend.file);
    db.exec(`
      CREATE TABLE IF NOT EXISTS bench_locations AS
        SELECT id AS org_id, doc ->> '$.location.headquarters.country_code' AS country_code, doc ->> '$.location.headquarters.subdivision_code' AS subdivision_code
        FROM organizations WHERE doc ->> '$.location.headquarters' IS NOT NULL
        UNION ALL SELECT o.id, e.value ->> 'country_code', e.value ->> 'subdivision_code' FROM organizations o, json_each(o.doc, '$.location.offices') e;
      CREATE TABLE IF NOT EXISTS bench_categories AS SELECT o.id AS org_id, e.value AS slug FROM organizations o, json_each(o.doc, '$.categories') e;
      CREATE INDEX IF NOT EXISTS b1 ON organizations(hq_country); CREATE INDEX IF NOT EXISTS b2 ON organizations(hq_subdivision);
      CREATE INDEX IF NOT EXISTS b3 ON organizations(employee_range); CREATE INDEX IF NOT EXISTS b4 ON organizations(employee_count);
      CREATE INDEX IF NOT EXISTS b5 ON organizations(founded_year); CREATE INDEX IF NOT EXISTS b6 ON organizations(last_round_stage);
      CREATE INDEX IF NOT EXISTS b7 ON organizations(last_round_date); CREATE INDEX IF NOT EXISTS b8 ON bench_categories(slug, org_id);
      CREATE INDEX IF NOT EXISTS b9 ON bench_locations(country_code, org_id); CREATE INDEX IF NOT EXISTS b10 ON bench_locations(subdivision_code, org_id);
      ANALYZE;`);

    const random = rng(7);
    const queries = Array.from({ length: 64 }, () => unitVector(DIM, random));
    const runs = count > 50_000 ? 60 : 200;
    console.log(`\n${runs} queries each, ms. filter = candidate computation only; search = filter + exact ranking (+ documents for store.search)`);
    console.log("| scenario | matches | memory filter p50/p95 | SQL filter p50/p95 | memory search p50/p95 | SQL search p50/p95 | store.search p50/p95 |");
    console.log("|---|---:|---:|---:|---:|---:|---:|");
    for (const [name, kind, filter] of SCENARIOS) {
      const rows = index.filterRows(filter);
      const sqlIds = sqlCandidates(db, filter);
      if ((rows?.length ?? count) !== (sqlIds?.length ?? count)) throw new Error(`${name}: memory and SQL disagree`);
      const q = (i: number) => queries[i % queries.length] as Float32Array;
      // The scan itself: filterRows would answer the repeats from its cache.
      const memFilter = await time(runs, () => index.scanFilter(filter));
      const sqlFilter = await time(runs, () => sqlCandidates(db, filter));
      const memSearch = await time(runs, (i) => index.rank(q(i), kind, index.scanFilter(filter), RANK));
      const sqlSearch = await time(runs, (i) => {
        const ids = sqlCandidates(db, filter);
        const candidates = ids ? new FilteredRows(Int32Array.from(ids, (id) => index.rowOf(id) as number).sort(), index.size) : null;
        return index.rank(q(i), kind, candidates, RANK);
      });
      const store = await time(runs, (i) => backend.organizations.search({ vector: q(i), kind, filter, ...PAGE }));
      const pair = (t: { p50: number; p95: number }) => `${ms(t.p50)} / ${ms(t.p95)}`;
      console.log(
        `| ${name} | ${(rows?.length ?? count).toLocaleString("en")} | ${pair(memFilter)} | ${pair(sqlFilter)} | ${pair(memSearch)} | ${pair(sqlSearch)} | ${pair(store)} |`,
      );
    }
    db.close();
    await backend.close();
  } finally {
    dir.remove();
  }
}

for (const count of SIZES.length ? SIZES : [10_000, 100_000]) await bench(count);

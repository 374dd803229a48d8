import { existsSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { OrganizationFilter, VectorKind } from "@orgsim/core";
import { randomRecords, rng, unitVector } from "@orgsim/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EmbeddedBackend, openEmbeddedBackend } from "../src/index";
import { tempDir } from "./temp-dir";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };
const SNAPSHOT = "orgsim.memory.bin";

describe("embedded: the memory snapshot", () => {
  let dir: ReturnType<typeof tempDir>;
  const opened: EmbeddedBackend[] = [];
  const open = () => {
    const backend = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { exactBelow: 0 } });
    opened.push(backend);
    return backend;
  };

  /** What searches see: vector and word rankings, filtered and not, term statistics and customer-base figures. */
  async function answers(backend: EmbeddedBackend) {
    const store = backend.organizations;
    const random = rng(5);
    const filters: OrganizationFilter[] = [
      {},
      { employeesMin: 20, fundingStages: ["seed", "series_a"] },
      { categories: ["fintech", "health"] },
      { location: { countries: ["JP"], subdivisions: ["US-NY"], hqOnly: false } },
    ];
    const out: unknown[] = [await store.count()];
    for (const filter of filters) {
      for (const kind of ["profile", "customer"] as VectorKind[]) {
        out.push(await store.rank({ vector: unitVector(DIM, random), kind, filter, offset: 0, size: 10 }));
        out.push(await store.searchText({ text: "payments robots clinic software", kind, filter, size: 10 }));
      }
    }
    const stats = await store.termStatistics(["payments", "software", "clinic"], "profile");
    out.push(stats.documents, [...stats.docFrequency]);
    const ids = Array.from({ length: 1500 }, (_, i) => i + 1);
    out.push([...(await store.customerBaseFigures(unitVector(DIM, random), ids))]);
    return out;
  }

  beforeEach(async () => {
    dir = tempDir();
    const first = open();
    await first.organizations.upsert(randomRecords(1500, DIM, 3), MODEL);
    // Deletes and replacements leave dead word slots and moved rows behind: the snapshot must keep them right.
    for (let id = 1; id <= 1500; id += 7) await first.organizations.delete(id);
    await first.organizations.upsert(randomRecords(200, DIM, 4, 100), MODEL);
    await first.close();
  });
  afterEach(async () => {
    for (const backend of opened.splice(0)) await backend.close();
    dir.remove();
  });

  it("is written at close, and a store opened from it answers as one read from SQLite", async () => {
    expect(existsSync(join(dir.path, SNAPSHOT))).toBe(true);
    const fromSnapshot = await answers(open());
    rmSync(join(dir.path, SNAPSHOT));
    const fromSqlite = await answers(open());
    expect(fromSnapshot).toEqual(fromSqlite);
  });

  it("takes writes after it was read (rows replaced, moved by deletes, added), and is replaced at the next close", async () => {
    const reopened = open();
    await reopened.organizations.upsert(randomRecords(50, DIM, 8, 5000), MODEL);
    await reopened.organizations.upsert(randomRecords(30, DIM, 10, 40), MODEL);
    for (const id of [2, 3, 300, 1499]) await reopened.organizations.delete(id);
    const live = await answers(reopened);
    await reopened.close();
    expect(await answers(open())).toEqual(live);
    // And as a store read from SQLite, without the snapshot, answers.
    rmSync(join(dir.path, SNAPSHOT));
    expect(await answers(open())).toEqual(live);
  });

  it("is ignored when the data has changed since it was written, or when it is torn", async () => {
    const file = join(dir.path, SNAPSHOT);
    const older = readFileSync(file);
    const other = open();
    const added = randomRecords(1, DIM, 9, 9000);
    await other.organizations.upsert(added, MODEL);
    await other.close();
    // As if the process that wrote had been killed before it could save: the snapshot on disk is of an older generation.
    writeFileSync(file, older);
    const reopened = open();
    const [hit] = await reopened.organizations.rank({ vector: added[0]?.profileVector as Float32Array, kind: "profile", filter: {}, offset: 0, size: 1 });
    expect(hit?.id).toBe(9000);
    const want = await answers(reopened);
    await reopened.close();

    truncateSync(file, Math.floor(statSync(file).size / 2));
    expect(await answers(open())).toEqual(want);
  });
});

import { randomRecords } from "@orgsim/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openEmbeddedBackend, savedIndexIsCurrent } from "../src/index";
import { tempDir } from "./temp-dir";

const DIM = 16;
const MODEL = { modelId: "test-model", dimension: DIM };

describe("embedded: whether the saved index is current (server workers then start together)", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  it("is not for a missing or empty store, is once a store closed after writes, and is not after a write that was not saved", async () => {
    expect(savedIndexIsCurrent(dir.path, { graphs: true })).toBe(false);
    const empty = openEmbeddedBackend({ dataDir: dir.path });
    await empty.close();
    expect(savedIndexIsCurrent(dir.path, { graphs: true })).toBe(false);

    const writer = openEmbeddedBackend({ dataDir: dir.path });
    await writer.organizations.upsert(randomRecords(200, DIM, 3), MODEL);
    await writer.organizations.vectorIndexSettled();
    await writer.close();
    expect(savedIndexIsCurrent(dir.path, { graphs: true })).toBe(true);

    // A store kept in "exact" mode saves no graphs: its snapshot alone is what a start loads.
    const exact = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { kind: "exact" } });
    await exact.organizations.upsert(randomRecords(5, DIM, 4, 1_000), MODEL);
    await exact.close();
    expect(savedIndexIsCurrent(dir.path, { graphs: false })).toBe(true);
    expect(savedIndexIsCurrent(dir.path, { graphs: true })).toBe(false);

    // Still open (as after a kill): its last write is in SQLite, not in the saved files.
    const open = openEmbeddedBackend({ dataDir: dir.path, vectorIndex: { kind: "exact" } });
    await open.organizations.upsert(randomRecords(1, DIM, 5, 2_000), MODEL);
    expect(savedIndexIsCurrent(dir.path, { graphs: false })).toBe(false);
    await open.close();
  });
});

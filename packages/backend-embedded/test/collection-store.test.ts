import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { EntityType } from "@orgsim/core";
import { describeCollectionStoreContract, expectOneType, item, newCollection as create } from "@orgsim/testing/contracts";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EmbeddedBackend, openEmbeddedBackend } from "../src/index";
import { tempDir } from "./temp-dir";

describeCollectionStoreContract("embedded", {
  async open() {
    const dir = tempDir();
    let backend = openEmbeddedBackend({ dataDir: dir.path });
    return {
      get store() {
        return backend.collections;
      },
      async reopen() {
        await backend.close();
        backend = openEmbeddedBackend({ dataDir: dir.path });
        return backend.collections;
      },
      async cleanup() {
        await backend.close();
        dir.remove();
      },
    };
  },
});

describe("embedded: SQLite specifics", () => {
  let dir: ReturnType<typeof tempDir>;
  let backend: EmbeddedBackend;
  const open = () => openEmbeddedBackend({ dataDir: dir.path });
  const newCollection = (tenant = "acme") => create(backend.collections, tenant);

  beforeEach(() => {
    dir = tempDir();
    backend = open();
  });
  afterEach(async () => {
    await backend.close();
    dir.remove();
  });

  it("deleting a collection deletes its items", async () => {
    const c = await newCollection();
    const keep = await newCollection();
    await backend.collections.addItems(
      "acme",
      c.id,
      [1, 2, 3].map((n) => item("person", n)),
    );
    await backend.collections.addItems("acme", keep.id, [item("person", 1)]);
    await backend.collections.delete("acme", c.id);
    const raw = new Database(backend.file, { readonly: true });
    expect(raw.prepare("SELECT collection_id, count(*) AS n FROM collection_items GROUP BY collection_id").all()).toEqual([{ collection_id: keep.id, n: 1 }]);
    raw.close();
  });

  it("two connections on one file, interleaved: one type wins", async () => {
    const other = open();
    const c = await newCollection();
    const calls = Array.from({ length: 200 }, (_, i) =>
      (i % 2 ? other : backend).collections.addItems("acme", c.id, [item(i % 2 ? "person" : "product", i), item(i % 2 ? "person" : "product", i + 1000)]),
    );
    const results = await Promise.allSettled(calls);
    const fulfilled = results.filter((r) => r.status === "fulfilled");
    expect(fulfilled).toHaveLength(100);
    await expectOneType(backend.collections, c.id, "product", 200);
    await other.close();
  });

  it("four processes racing on one empty collection: one type wins, nothing else stored", { timeout: 60_000 }, async () => {
    const c = await newCollection();
    const worker = fileURLToPath(new URL("./fixtures/add-items-worker.ts", import.meta.url));
    const types: EntityType[] = ["organization", "person", "product", "address"];
    const startAt = Date.now() + 3000;
    const runs = types.map((type, w) =>
      promisify(execFile)(process.execPath, ["--import", "tsx", worker, dir.path, "acme", c.id, type, "50", String(w * 1000 + 1), String(startAt)], {
        cwd: fileURLToPath(new URL("..", import.meta.url)),
      }),
    );
    const outputs = (await Promise.all(runs)).map((r) => JSON.parse(r.stdout) as { added: number; refused: number; errors: string[] });
    expect(outputs.flatMap((o) => o.errors)).toEqual([]);
    const winners = outputs.filter((o) => o.added > 0);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toEqual({ added: 50, refused: 0, errors: [] });
    expect(outputs.filter((o) => o.added === 0).every((o) => o.refused === 50)).toBe(true);
    await expectOneType(backend.collections, c.id, types[outputs.indexOf(winners[0] as (typeof outputs)[number])] as EntityType, 50);
  });
});

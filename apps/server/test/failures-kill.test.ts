/**
 * Killed mid-write (SIGKILL, no chance to clean up): the server while a client sends a series of
 * bulk upserts, and `orgsim import` mid-run. On restart every acknowledged batch is there, the
 * store is sound (SQLite: integrity_check, foreign keys, vectors; Elasticsearch: ids, counts and
 * vectors agree), and sending the same data again completes it: exactly the expected
 * organizations, none twice. Runs on both backends.
 */
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { READER_THREAD_FROM_BYTES } from "@orgsim/importer";
import { generateSampleOrganizations } from "@orgsim/sample-data";
import { afterAll, describe, expect, it } from "vitest";
import { countStored, inspectStore, range, type ServerProcess, sleep, spawnImport, spawnServer, waitFor } from "./failures-support";
import { removeDir, TEST_BACKEND } from "./harness";

const dirs: string[] = [];
const servers: ServerProcess[] = [];
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `orgsim-${name}-`));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const server of servers) await server.kill();
  for (const dir of dirs) removeDir(dir);
});

async function start(dataDir: string) {
  const server = await spawnServer(dataDir);
  servers.push(server);
  return server;
}

async function bulk(server: ServerProcess, organizations: unknown[]) {
  const response = await fetch(`${server.baseUrl}/v1/organizations/bulk`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ organizations }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Every stored id, through the API: one search page of up to 100 (the tests store fewer). */
async function idsServed(server: ServerProcess): Promise<number[]> {
  const response = await fetch(`${server.baseUrl}/v1/search/organizations/similar?description=any+business&limit=100`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { id: number }[]; meta: { next_cursor: string | null } };
  expect(body.meta.next_cursor).toBeNull();
  return body.data.map((o) => o.id).sort((a, b) => a - b);
}

describe("SIGKILL of the server during bulk upserts", () => {
  const BATCH = 8;
  const organizations = generateSampleOrganizations({ count: 48 });
  const batches = range(0, organizations.length / BATCH - 1).map((i) => organizations.slice(i * BATCH, (i + 1) * BATCH));

  it("keeps every acknowledged batch, stays sound, and a re-run completes the data exactly", { timeout: 180_000 }, async () => {
    const dataDir = tempDir("kill-server");
    const acknowledged = new Set<number>();
    const sent = new Set<number>();
    let next = 0;
    // Two crashes: one early in a request (while it embeds), one later in it (nearer its write).
    for (const killAfterMs of [100, 350]) {
      const server = await start(dataDir);
      for (let acks = 0; acks < 2; acks++, next++) {
        const batch = batches[next] as typeof organizations;
        for (const o of batch) sent.add(o.id);
        const response = await bulk(server, batch);
        expect(response.status).toBe(200);
        for (const o of batch) acknowledged.add(o.id);
      }
      const inFlight = batches[next++] as typeof organizations;
      for (const o of inFlight) sent.add(o.id);
      const outcome = bulk(server, inFlight).then(
        (response) => response.status,
        () => "connection lost" as const,
      );
      await sleep(killAfterMs);
      await server.kill();
      const answered = await outcome;
      if (answered === 200) for (const o of inFlight) acknowledged.add(o.id);

      const state = await inspectStore(dataDir);
      expect(state.problems).toEqual([]);
      expect(state.ids).toEqual([...new Set(state.ids)]);
      for (const id of acknowledged) expect(state.ids).toContain(id);
      for (const id of state.ids) expect(sent.has(id)).toBe(true);
      if (TEST_BACKEND === "embedded") {
        // One transaction a request: the batch cut short is there entirely or not at all.
        const cut = state.ids.filter((id) => inFlight.some((o) => o.id === id));
        expect([0, inFlight.length]).toContain(cut.length);
      }
      const stored = state.ids.filter((id) => inFlight.some((o) => o.id === id)).length;
      console.log(
        `[fault] ${TEST_BACKEND}: SIGKILL of the server ${killAfterMs} ms into a bulk upsert (${answered}); ` +
          `${acknowledged.size} acknowledged, ${state.ids.length} stored, ${stored}/${inFlight.length} of the cut batch stored; sound`,
      );
    }

    // Restarted on the same store: what was acknowledged is served; sending everything again completes it.
    const server = await start(dataDir);
    const served = await idsServed(server);
    expect(served).toEqual([...new Set(served)]);
    for (const id of acknowledged) expect((await fetch(`${server.baseUrl}/v1/organizations/${id}`)).status).toBe(200);
    for (const batch of batches) expect((await bulk(server, batch)).status).toBe(200);
    const all = organizations.map((o) => o.id);
    expect(await idsServed(server)).toEqual(all);
    server.child.kill("SIGTERM");
    expect((await server.exited).code).toBe(0);
    const state = await inspectStore(dataDir);
    expect(state.problems).toEqual([]);
    expect(state.ids).toEqual(all);
  });
});

describe("SIGKILL of orgsim import", () => {
  const BATCH = 8;
  // Twelve batches: the import is still running when the test sees two of them stored and kills it.
  const ROWS = 96;

  // A file padded past READER_THREAD_FROM_BYTES, with a field no mapping reads, is read on the import's reader thread.
  for (const [reading, padding] of [
    ["read on the import's own thread", 0],
    ["read on its reader thread", Math.ceil(READER_THREAD_FROM_BYTES / ROWS)],
  ] as const) {
    it(`keeps the batches written before the kill, stays sound, and importing again completes the file exactly (${reading})`, {
      timeout: 180_000,
    }, async () => {
      const dataDir = tempDir("kill-import");
      const rows = generateSampleOrganizations({ count: ROWS }).map((o) => ({
        id: o.id,
        name: o.name,
        about: o.description,
        customers: o.customer_description ?? null,
        country: o.location?.headquarters?.country_code ?? null,
        ...(padding > 0 && { padding: "x".repeat(padding) }),
      }));
      const file = join(dataDir, "export.ndjson");
      writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
      expect(statSync(file).size >= READER_THREAD_FROM_BYTES).toBe(padding > 0);
      const mapping = join(dataDir, "mapping.json");
      writeFileSync(
        mapping,
        JSON.stringify({
          format: "ndjson",
          id: "id",
          fields: {
            name: "name",
            description: "about",
            customer_description: "customers",
            "headquarters.country_code": { from: "country", transform: "country" },
          },
        }),
      );

      const killed = spawnImport(dataDir, file, mapping, ["--batch-size", String(BATCH)]);
      let exitedEarly = false;
      void killed.exited.then(() => (exitedEarly = true));
      // Two batches in: kill it.
      const seen = await waitFor(
        "two batches imported",
        async () => {
          if (exitedEarly) throw new Error(`orgsim import exited before it was killed:\n${killed.output().stdout}${killed.output().stderr}`);
          const stored = await countStored(dataDir).catch(() => undefined); // the store may not exist yet
          return stored !== undefined && stored >= 2 * BATCH ? stored : undefined;
        },
        90_000,
      );
      killed.child.kill("SIGKILL");
      expect((await killed.exited).signal).toBe("SIGKILL");

      const state = await inspectStore(dataDir);
      expect(state.problems).toEqual([]);
      expect(state.ids.length).toBeGreaterThanOrEqual(seen);
      expect(state.ids.length).toBeLessThan(ROWS);
      for (const id of state.ids) expect(id >= 1 && id <= ROWS).toBe(true);
      if (TEST_BACKEND === "embedded") {
        // Batches are written in file order, one transaction each: whole batches, from the top.
        expect(state.ids.length % BATCH).toBe(0);
        expect(state.ids).toEqual(range(1, state.ids.length));
      }

      console.log(`[fault] ${TEST_BACKEND}: SIGKILL of orgsim import after ${seen} rows were seen stored; ${state.ids.length} of ${ROWS} stored; sound`);
      const rerun = spawnImport(dataDir, file, mapping, ["--batch-size", String(BATCH)]);
      const exit = await rerun.exited;
      expect(exit.code, rerun.output().stderr).toBe(0);
      expect(rerun.output().stdout).toMatch(new RegExp(`imported ${ROWS}\\b`));
      const after = await inspectStore(dataDir);
      expect(after.problems).toEqual([]);
      expect(after.ids).toEqual(range(1, ROWS));
    });
  }
});

/** A store filled with one model refuses queries and writes from another, with a clear error. */
import { afterAll, expect, it } from "vitest";
import { api, removeDir, type TestServer, startServer } from "./harness";

let server: TestServer | undefined;
let dataDir: string | undefined;
afterAll(async () => {
  await server?.stop();
  if (dataDir) removeDir(dataDir);
});

it("refuses to mix vectors of two models", async () => {
  server = await startServer({ env: { ORGSIM_SAMPLE_SIZE: "10" } });
  dataDir = server.dataDir;
  const first = await api(server, "GET", "/search/organizations/similar?description=payments+software");
  expect(first.body.meta.model).toBe("bge-small-en-v1.5-q");
  await server.stop();

  server = await startServer({ dataDir, env: { ORGSIM_SAMPLE_SIZE: "10", ORGSIM_MODEL: "all-minilm-l6-v2-q" } });
  const search = await api(server, "GET", "/search/organizations/similar?description=payments+software");
  expect(search.status).toBe(409);
  expect(search.body.error.code).toBe("CONFLICT");
  expect(search.body.error.message).toContain("bge-small-en-v1.5-q");
  expect(search.body.error.message).toContain("all-minilm-l6-v2-q");

  const write = await api(server, "PUT", "/organizations/77", { name: "Another model" });
  expect(write.status).toBe(409);
  expect((await api(server, "GET", "/organizations/77")).status).toBe(404);

  // Similar-to-a-known-organization compares stored vectors only, so it keeps working.
  expect((await api(server, "GET", "/search/organizations/1/similar")).status).toBe(200);
});

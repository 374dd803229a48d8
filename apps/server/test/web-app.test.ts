/**
 * The web app's handler on its own (no orgsim server, no model): what `/` says when there is no
 * build, and which build it picks. How a real server serves a real build is tested in apps/web.
 */
import { once } from "node:events";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createWebAppHandler, findWebDist, WEB_DIST_CANDIDATES } from "../src/http/web-app";
import { removeDir } from "./harness";

const root = mkdtempSync(join(tmpdir(), "orgsim-web-app-"));
const servers: Server[] = [];

async function serve(candidates: string[]): Promise<string> {
  const handle = createWebAppHandler(candidates);
  const server = createServer(async (req, res) => {
    if (!(await handle(req, res, new URL(req.url ?? "/", "http://localhost").pathname))) {
      res.writeHead(404);
      res.end("not handled");
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

afterAll(() => {
  for (const server of servers) server.close();
  removeDir(root);
});

describe("the web app's handler", () => {
  it("says at / how to build the app when no build is found, and leaves asset paths to the 404", async () => {
    const base = await serve([join(root, "missing")]);
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(503);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("pnpm --filter @orgsim/web build");
    expect((await fetch(`${base}/assets/index.js`)).status).toBe(404);
  });

  it("serves the first build found, and a file added by a rebuild at once", async () => {
    const dist = join(root, "dist");
    mkdirSync(join(dist, "assets"), { recursive: true });
    writeFileSync(join(dist, "index.html"), "<!doctype html><title>built</title>");
    writeFileSync(join(dist, "assets", "a-1.js"), "1");
    expect(findWebDist([join(root, "missing"), dist])).toBe(dist);
    const base = await serve([join(root, "missing"), dist]);
    expect(await (await fetch(`${base}/`)).text()).toContain("built");
    expect(await (await fetch(`${base}/assets/a-1.js`)).text()).toBe("1");
    writeFileSync(join(dist, "assets", "a-2.js"), "2");
    expect(await (await fetch(`${base}/assets/a-2.js`)).text()).toBe("2");
    expect((await fetch(`${base}/assets/a-3.js`)).status).toBe(404);
  });

  it("looks for the build beside the sources, the bundle and the image's layout", () => {
    // From src/http (tsx): apps/web/dist; the same directory from apps/server/dist (the bundle); /app/web from /app/dist (the image).
    expect(WEB_DIST_CANDIDATES[0]).toBe(join(import.meta.dirname, "../../web/dist"));
    expect(findWebDist()).toBe(join(import.meta.dirname, "../../web/dist"));
  });
});

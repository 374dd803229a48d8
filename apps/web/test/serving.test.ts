/** How the orgsim server serves the built app: content types, caching, no way out of the build, the API's 404 elsewhere. */
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { baseUrl } from "./browser";

/** A GET with the path sent exactly as written (fetch would normalize "..", which is the point here). */
function rawGet(path: string, method = "GET"): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(baseUrl());
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("serving the web app", () => {
  it("serves index.html at / uncached, and its hashed assets cached for a year with their types", async () => {
    const page = await rawGet("/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["cache-control"]).toBe("no-store");
    expect(page.body).toContain('<div id="root"></div>');
    const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(page.body)?.[1];
    const style = /href="(\/assets\/index-[\w-]+\.css)"/.exec(page.body)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await rawGet(script!);
    expect(js.status).toBe(200);
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(js.headers["x-content-type-options"]).toBe("nosniff");
    const css = await rawGet(style!);
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect((await rawGet("/index.html")).body).toBe(page.body);
    const head = await rawGet("/", "HEAD");
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
  });

  it("never serves a file outside the build, and answers other paths with the API's 404", async () => {
    for (const path of [
      "/assets/../../package.json",
      "/assets/..%2f..%2fpackage.json",
      "/assets/%2e%2e/%2e%2e/package.json",
      "/assets/../../../../etc/passwd",
      "/assets/",
      "/assets/__proto__",
      "/assets/index.js",
      "/package.json",
      "/src/main.tsx",
      "/no-such-page",
    ]) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(404);
      expect(answer.headers["content-type"], path).toBe("application/json");
      const body = JSON.parse(answer.body) as { error: { code: string; request_id: string } };
      expect(body.error.code, path).toBe("NOT_FOUND");
    }
    // Only GET and HEAD: a POST to / is not the page.
    expect((await rawGet("/", "POST")).status).toBe(404);
  });
});

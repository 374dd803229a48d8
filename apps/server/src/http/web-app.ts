/**
 * The web app (apps/web, built by Vite into apps/web/dist) at `/`: index.html, never cached (it
 * names the current build's files), and its content-hashed files under /assets/, cached for a
 * year. Only names found in the build's own listing are served, so a path can never reach outside
 * it. Without a build, `/` says how to make one instead of failing.
 */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join } from "node:path";
import { send } from "./docs";

/** Where the build is, first found wins: from source (tsx), from the bundle (apps/server/dist), in the image (/app/dist → /app/web). */
export const WEB_DIST_CANDIDATES = [
  join(import.meta.dirname, "../../../web/dist"),
  join(import.meta.dirname, "../../web/dist"),
  join(import.meta.dirname, "../web"),
];

const CONTENT_TYPES = new Map([
  [".js", "text/javascript; charset=utf-8"],
  [".css", "text/css; charset=utf-8"],
  [".map", "application/json"],
  [".svg", "image/svg+xml"],
  [".png", "image/png"],
  [".ico", "image/x-icon"],
  [".woff2", "font/woff2"],
  [".txt", "text/plain; charset=utf-8"],
]);

const HASHED_ASSET_CACHE = "public, max-age=31536000, immutable";

export const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>orgsim: web app not built</title></head>
<body><h1>The orgsim web app is not built</h1>
<p>This server found no build of apps/web. Build it with <code>pnpm --filter @orgsim/web build</code>
(<code>pnpm start</code> and <code>pnpm build</code> do it), then reload this page.
The API works without it: <a href="/docs">/docs</a>.</p></body></html>`;

export function findWebDist(candidates: readonly string[] = WEB_DIST_CANDIDATES): string | null {
  return candidates.find((dir) => existsSync(join(dir, "index.html"))) ?? null;
}

/** Handles `/`, `/index.html` and `/assets/*` for GET and HEAD; false for any other request (the caller's 404). */
export function createWebAppHandler(candidates: readonly string[] = WEB_DIST_CANDIDATES) {
  // The listing of assets/ is kept, and read again when a name is not in it (a rebuild since).
  let listing: { dir: string; names: Set<string> } | undefined;
  const isAsset = async (dir: string, name: string) => {
    if (listing?.dir === dir && listing.names.has(name)) return true;
    listing = { dir, names: new Set(await readdir(join(dir, "assets")).catch(() => [])) };
    return listing.names.has(name);
  };

  return async (req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const isPage = path === "/" || path === "/index.html";
    const asset = path.startsWith("/assets/") ? path.slice("/assets/".length) : null;
    if (!isPage && asset === null) return false;
    const dir = findWebDist(candidates);
    if (!dir) {
      if (!isPage) return false;
      send(res, 503, "text/html; charset=utf-8", NOT_BUILT_PAGE);
      return true;
    }
    if (isPage) {
      send(res, 200, "text/html; charset=utf-8", await readFile(join(dir, "index.html")));
      return true;
    }
    // A name from the directory's own listing: "..", "%2e%2e", "a/b" or "__proto__" find nothing.
    if (!asset || !(await isAsset(dir, asset))) return false;
    const type = CONTENT_TYPES.get(extname(asset)) ?? "application/octet-stream";
    res.setHeader("x-content-type-options", "nosniff");
    send(res, 200, type, await readFile(join(dir, "assets", asset)), HASHED_ASSET_CACHE);
    return true;
  };
}

/** /openapi.json and a browsable /docs page (Swagger UI served from the package, no CDN). */
import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildOpenApiDocument } from "@orgsim/api";

/** Swagger UI's folder, found without loading the package: its main module runs the 1 MB UI bundle (0.1 s of each worker's start). */
const SWAGGER_DIR = dirname(fileURLToPath(import.meta.resolve("swagger-ui-dist/package.json")));

/** The files served, by name: a Map, so a name like `__proto__` or `toString` finds nothing. */
const SWAGGER_FILES = new Map([
  ["swagger-ui.css", "text/css"],
  ["swagger-ui-bundle.js", "application/javascript"],
  ["swagger-ui-standalone-preset.js", "application/javascript"],
  ["favicon-32x32.png", "image/png"],
]);

const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>orgsim API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"><link rel="icon" href="/docs/favicon-32x32.png"></head>
<body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui", deepLinking: true });</script>
</body></html>`;

export function createDocsHandlers(publicBaseUrl: () => string) {
  let document: string | undefined;
  return {
    openapi(res: ServerResponse) {
      document ??= JSON.stringify(buildOpenApiDocument(`${publicBaseUrl()}/v1`));
      send(res, 200, "application/json", document);
    },
    /** Serves the page or one of its files; false when `path` names neither. */
    async docs(path: string, res: ServerResponse): Promise<boolean> {
      const file = path.replace(/^\/docs\/?/, "");
      if (file === "" || file === "index.html") {
        send(res, 200, "text/html; charset=utf-8", DOCS_PAGE);
        return true;
      }
      const type = SWAGGER_FILES.get(file);
      if (!type) return false;
      send(res, 200, type, await readFile(join(SWAGGER_DIR, file)), "public, max-age=86400");
      return true;
    },
  };
}

export function send(res: ServerResponse, status: number, type: string, body: string | Buffer, cache = "no-store") {
  res.writeHead(status, { "content-type": type, "cache-control": cache });
  res.end(body);
}

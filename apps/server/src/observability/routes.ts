/** What a request is, for metrics and logs: its surface, and its route with the ids taken out (few distinct values). */
import type { Surface } from "./metrics";

export function surfaceOf(path: string): Surface {
  if (path.startsWith("/v1/")) return "rest";
  if (path.startsWith("/trpc/")) return "trpc";
  if (path === "/mcp") return "mcp";
  return "other";
}

/** Known non-API paths keep their name; anything else off the API is "other" (not one series per probe). */
const PLAIN = new Set(["/", "/health", "/ready", "/metrics", "/openapi.json", "/docs", "/mcp"]);

/** "/v1/collections/col_x/items/itm_y" → "/v1/collections/{id}/items/{item_id}"; tRPC keeps its procedure names. */
export function routeOf(method: string, path: string): string {
  if (path.startsWith("/trpc/")) return path.length > 120 ? "/trpc/(batch)" : path;
  if (!path.startsWith("/v1/")) {
    if (PLAIN.has(path)) return path;
    if (path.startsWith("/docs/")) return "/docs/*";
    return path.startsWith("/assets/") ? "/assets/*" : "other";
  }
  const template = path
    .split("/")
    .map((part) => (/^\d+$/.test(part) ? "{organization_id}" : /^col_/.test(part) ? "{id}" : /^itm_/.test(part) ? "{item_id}" : part))
    .join("/");
  return `${method} ${template}`;
}

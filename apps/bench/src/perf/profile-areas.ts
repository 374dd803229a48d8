/**
 * Where a loaded server's CPU goes by layer, for `pnpm bench:profile`: each sample is charged to
 * the innermost frame of its stack that belongs to a known layer (so JSON.stringify called by
 * trpc-to-openapi counts as routing, a SQLite read called by the store as the store), Node.js's own
 * code only when no layer is on the stack. Self times (profile.ts's other table) cannot say this:
 * a native call made from JavaScript is charged to its caller.
 */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface CpuProfile {
  startTime: number;
  endTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Layers, tested against a frame's URL in this order. */
const LAYERS: [string, RegExp][] = [
  ["vector graphs (usearch)", /usearch/],
  ["dot products (native kernel)", /native-kernel|backend-embedded\/src\/vector-matrix\.ts/],
  ["embedded store: memory and word indexes, SQLite reads", /backend-embedded\/|better-sqlite3/],
  ["Elasticsearch adapter", /backend-elasticsearch\//],
  ["Elasticsearch client", /@elastic\//],
  ["core: search service, fusion, explanations", /packages\/core\//],
  ["validation (zod)", /\/zod\//],
  ["routing and serialization (tRPC, trpc-to-openapi)", /@trpc\/|trpc-to-openapi/],
  ["metrics, logs, traces", /prom-client|opentelemetry|pino/],
  ["server: HTTP handling, access, limits", /apps\/server\/|packages\/(api|runtime)\//],
];
const NODE = "Node.js: HTTP, streams, timers";
const GC = "garbage collector";

/** Each layer's share of the busy samples taken between `from` and `to` (profile clock, µs), largest first. */
export function layerShares(profile: CpuProfile, from: number, to: number): [string, number][] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const layerOf = new Map<number, string | null>();
  const charged = (id: number): string | null => {
    if (layerOf.has(id)) return layerOf.get(id) as string | null;
    const url = byId.get(id)?.callFrame.url ?? "";
    const own = LAYERS.find(([, pattern]) => pattern.test(url))?.[0];
    const up = parent.get(id);
    const layer = own ?? (up === undefined ? null : charged(up)) ?? (url.startsWith("node:") ? NODE : null);
    layerOf.set(id, layer);
    return layer;
  };
  const time = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    const name = byId.get(id)?.callFrame.functionName;
    if (at < from || at > to || name === "(idle)" || name === "(program)") return;
    const layer = name === "(garbage collector)" ? GC : (charged(id) ?? NODE);
    time.set(layer, (time.get(layer) ?? 0) + us);
    busy += us;
  });
  return [...time].map(([layer, us]): [string, number] => [layer, us / busy]).sort((a, b) => b[1] - a[1]);
}

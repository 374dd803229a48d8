/** Core's modules depend on each other one way only: no import cycle (type imports count too). */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "src");

/** Each module's relative imports, as absolute paths. */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(SRC, f));
  return new Map(
    files.map((file) => {
      const specifiers = [...readFileSync(file, "utf8").matchAll(/from\s+"(\.[^"]+)"/g)].map((m) => resolve(dirname(file), m[1] as string));
      return [file, specifiers.map((s) => (existsSync(`${s}.ts`) ? `${s}.ts` : join(s, "index.ts")))];
    }),
  );
}

function cyclesOf(graph: Map<string, string[]>): string[] {
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (file: string, path: string[]) => {
    if (path.includes(file)) {
      cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(" -> "));
      return;
    }
    if (done.has(file)) return;
    for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    done.add(file);
  };
  for (const file of graph.keys()) visit(file, []);
  return cycles;
}

describe("core's modules", () => {
  it("import each other without a cycle", () => {
    expect(cyclesOf(importGraph())).toEqual([]);
  });
});

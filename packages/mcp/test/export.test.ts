/** export_collection through the SDK client, against the real services (real model, real SQLite). */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ExportedItem, openPrincipal } from "@orgsim/core";
import { describe, expect, it } from "vitest";
import { MAX_INLINE_ITEMS } from "../src/tools/export";
import { call, connect, type Harness, ok, text, toolError, withConnectedApp } from "./helpers";

let harness: Harness;
let client: Client;
withConnectedApp((started, connected) => {
  harness = started;
  client = connected;
});

const newCollection = async (name: string) => (await ok(client, "create_collection", { name })).data as { id: string };

describe("export_collection", () => {
  it("returns the link and every item inline, organizations as they are now (null when deleted)", async () => {
    const { organizations } = harness.app.services;
    await organizations.upsert({ id: 900_001, name: "Before Rename" });
    await organizations.upsert({ id: 900_002, name: "Soon Gone" });
    const collection = await newCollection("Export test");
    await ok(client, "bulk_add_collection_items", {
      collection_id: collection.id,
      items: [900_001, 900_002, 1].map((id) => ({ entity_type: "organization", entity_id: String(id), tags: ["x"] })),
    });
    await organizations.upsert({ id: 900_001, name: "After Rename" });
    await organizations.delete(900_002);

    const result = await call(client, "export_collection", { collection_id: collection.id, format: "ndjson" });
    expect(result.isError).toBeFalsy();
    const { data, meta } = result.structuredContent;
    expect(meta).toEqual({
      collection_id: collection.id,
      format: "ndjson",
      item_count: 3,
      url: null,
      path: `/v1/collections/${collection.id}/export?format=ndjson`,
      inline: true,
    });
    const byEntity = new Map(data.map((item: ExportedItem) => [item.entity_id, item]));
    expect((byEntity.get("900001") as ExportedItem).organization?.name).toBe("After Rename");
    expect((byEntity.get("900002") as ExportedItem).organization).toBeNull();
    expect((byEntity.get("1") as ExportedItem).organization).toEqual(await organizations.get(1));

    // The text carries the same items as NDJSON, one per line after the header lines.
    const lines = text(result).split("\n");
    const ndjson = lines.slice(lines.findIndex((line) => line.startsWith("Every item as NDJSON")) + 1);
    expect(ndjson.map((line) => ExportedItem.parse(JSON.parse(line)))).toEqual(data);
    await organizations.delete(900_001);
  });

  it("names the REST server when it knows its address, and defaults to CSV", async () => {
    const linked = await connect(harness.app, { restBaseUrl: "http://127.0.0.1:4321" });
    try {
      const collection = await newCollection("Linked");
      const { meta, data } = await ok(linked, "export_collection", { collection_id: collection.id });
      expect(meta).toMatchObject({
        format: "csv",
        url: `http://127.0.0.1:4321/v1/collections/${collection.id}/export?format=csv`,
        item_count: 0,
        inline: true,
      });
      expect(data).toEqual([]);
    } finally {
      await linked.close();
    }
  });

  it(`gives only the link past ${MAX_INLINE_ITEMS} items`, async () => {
    const collection = await newCollection("Big");
    const people = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({ entity_type: "person" as const, entity_id: `p${from + i}`, entity: { full_name: `Person ${from + i}` } }));
    await harness.app.services.collections.addMany(openPrincipal().tenant, collection.id, people(0, 1000));
    await harness.app.services.collections.addMany(openPrincipal().tenant, collection.id, people(1000, 1));
    const result = await call(client, "export_collection", { collection_id: collection.id });
    expect(result.structuredContent.data).toBeNull();
    expect(result.structuredContent.meta).toMatchObject({ item_count: MAX_INLINE_ITEMS + 1, inline: false });
    expect(text(result)).toContain("download the file");
  });

  it("refuses another tenant's collection (NOT_FOUND) and an unknown format, naming it", async () => {
    const collection = await newCollection("Mine");
    const other = await connect(harness.app, { principal: { ...openPrincipal(), tenant: "someone-else" } });
    try {
      expect(toolError(await call(other, "export_collection", { collection_id: collection.id })).code).toBe("NOT_FOUND");
    } finally {
      await other.close();
    }
    const bad = toolError(await call(client, "export_collection", { collection_id: collection.id, format: "xlsx" }));
    expect(bad.code).toBe("VALIDATION_FAILED");
    expect(bad.first).toContain("format");
  });
});

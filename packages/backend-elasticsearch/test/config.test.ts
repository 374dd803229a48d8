import { describe, expect, it } from "vitest";
import { createClient, resolveConfig } from "../src/config";

describe("Elasticsearch configuration", () => {
  it("takes a cluster's nodes separated by commas, shows them without credentials, and gives the client each", async () => {
    const url = "http://elastic:secret@127.0.0.1:9282, http://127.0.0.1:9283,https://es.internal:9243/prefix";
    const config = resolveConfig({ url });
    expect(config.url).toBe("http://127.0.0.1:9282,http://127.0.0.1:9283,https://es.internal:9243/prefix");
    const client = createClient({ url }, config);
    expect(client.connectionPool.connections.map((c) => c.url.host)).toEqual(["127.0.0.1:9282", "127.0.0.1:9283", "es.internal:9243"]);
    await client.close();
  });

  it("names the node URL that is wrong", () => {
    expect(() => resolveConfig({ url: "http://127.0.0.1:9200,127.0.0.1:9201" })).toThrow('Elasticsearch url is not a URL: "127.0.0.1:9201"');
    expect(() => resolveConfig({ url: "http://127.0.0.1:9200,ftp://127.0.0.1:9201" })).toThrow("Elasticsearch url must be http(s): ftp://127.0.0.1:9201");
  });

  it("builds graphs with m 32 and ef_construction 200 unless told otherwise, within Lucene's bounds", () => {
    const url = "http://127.0.0.1:9200";
    expect(resolveConfig({ url }).hnsw).toEqual({ m: 32, efConstruction: 200 });
    expect(resolveConfig({ url, hnswM: 16, hnswEfConstruction: 100 }).hnsw).toEqual({ m: 16, efConstruction: 100 });
    expect(() => resolveConfig({ url, hnswM: 513 })).toThrow("hnswM must be an integer in 1..512: 513");
    expect(() => resolveConfig({ url, hnswEfConstruction: 0 })).toThrow("hnswEfConstruction must be an integer in 1..3200: 0");
  });
});

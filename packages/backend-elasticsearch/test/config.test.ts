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
});

import { describeApiKeyStoreContract } from "@orgsim/testing/contracts";
import { afterAll } from "vitest";
import { prefixes, rawClient } from "./helpers";

const indices = prefixes("keys");
afterAll(() => indices.cleanup());

describeApiKeyStoreContract("elasticsearch", async () => {
  const prefix = indices.next();
  const backend = await indices.open({}, prefix);
  return {
    store: backend.apiKeys,
    async rawContents() {
      const client = rawClient();
      const response = await client.search({ index: `${prefix}-api-keys`, size: 100 });
      await client.close();
      return JSON.stringify(response.hits.hits);
    },
    cleanup: () => backend.close(),
  };
});

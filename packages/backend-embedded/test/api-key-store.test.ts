import { describeApiKeyStoreContract } from "@orgsim/testing/contracts";
import { openEmbeddedBackend } from "../src/index";
import { tempDir } from "./temp-dir";

describeApiKeyStoreContract("embedded", async () => {
  const dir = tempDir();
  const backend = openEmbeddedBackend({ dataDir: dir.path });
  return {
    store: backend.apiKeys,
    async rawContents() {
      const { default: Database } = await import("better-sqlite3");
      const db = new Database(backend.file, { readonly: true });
      const rows = db.prepare("SELECT * FROM api_keys").all();
      db.close();
      return JSON.stringify(rows);
    },
    async cleanup() {
      await backend.close();
      dir.remove();
    },
  };
});

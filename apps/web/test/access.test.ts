/**
 * A server that requires API keys: the app asks for one, keeps it in sessionStorage (this tab's
 * session) and never logs it. The key is made and then revoked here; the run's server is open
 * again afterwards (it runs with ORGSIM_OPEN=true, see global-setup.ts).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { ConsoleMessage } from "playwright-core";
import { afterAll, describe, expect, inject, it } from "vitest";
import { newResults, sharedBrowser } from "./browser";

const browser = sharedBrowser();

/** `pnpm orgsim keys …` against the run's data directory. */
function keysCommand(args: string[]): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "keys", ...args], {
    cwd: join(import.meta.dirname, "../../server"),
    env: { ...process.env, ORGSIM_BACKEND: "embedded", ORGSIM_DATA_DIR: inject("dataDir") },
  });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  child.stderr.on("data", (chunk) => (out += chunk));
  return new Promise((resolve, reject) => child.once("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`keys ${args[0]} failed:\n${out}`)))));
}

describe("API keys", () => {
  let keyId: string | undefined;
  afterAll(async () => {
    if (keyId) await keysCommand(["revoke", keyId]);
  });

  it("asks for a key when the server requires one, keeps it in the session, and never logs it", async () => {
    const created = JSON.parse(
      await keysCommand(["create", "--tenant", "web-test", "--scopes", "search:read,collections:read,collections:write", "--json"]),
    ) as {
      id: string;
      token: string;
    };
    keyId = created.id;
    const page = await browser.open();
    const logged: string[] = [];
    page.on("console", (message: ConsoleMessage) => logged.push(message.text()));
    const form = page.getByRole("region", { name: "API key required" });
    await form.waitFor();

    // A wrong key is refused, and the form says so.
    await form.getByLabel("API key").fill("osk_not-a-real-key");
    await form.getByRole("button", { name: "Use this key" }).click();
    await form.getByText("The server refused the API key this session holds").waitFor();

    await form.getByLabel("API key").fill(created.token);
    await form.getByRole("button", { name: "Use this key" }).click();
    await expect.poll(() => form.count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem("orgsim.apiKey"))).toBe(created.token);
    await page.getByRole("region", { name: "Collections" }).getByText("No collections yet.").waitFor();
    await page.getByLabel("What the organizations do").fill("payroll software");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    expect(await newResults(page, [])).toHaveLength(10);

    // A reload keeps the key (same tab session); forgetting it brings the form back.
    await page.reload();
    await page.getByRole("heading", { name: "Find similar organizations" }).waitFor();
    await page.getByRole("region", { name: "Collections" }).getByText("No collections yet.").waitFor();
    expect(await form.count()).toBe(0);
    await page.getByRole("button", { name: "Forget API key" }).click();
    expect(await page.evaluate(() => sessionStorage.getItem("orgsim.apiKey"))).toBeNull();
    await page.getByLabel("What the organizations do").fill("payroll software");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await form.waitFor();

    expect(logged.filter((line) => line.includes(created.token) || line.includes("osk_not-a-real-key"))).toEqual([]);
  });
});

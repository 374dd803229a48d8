/**
 * One orgsim server (the real `orgsim serve`, the real model, 400 fictional sample organizations,
 * its own data directory) and one Chromium for the whole run; every test file connects to both.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOrgsimServe } from "@orgsim/testing/serve";
import { chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
import { chromiumPath } from "./chromium";

export const TEST_SAMPLE_SIZE = 400;

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    dataDir: string;
    browserWsEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  // First, so that a machine without Chromium fails at once, saying how to install it.
  const executablePath = chromiumPath();
  if (!existsSync(join(import.meta.dirname, "../dist/index.html")))
    throw new Error("apps/web/dist is missing: build the app first (pnpm --filter @orgsim/web build; pnpm test builds it)");
  const dataDir = mkdtempSync(join(tmpdir(), "orgsim-web-test-"));
  // Both at once: the browser starts while the server loads its model and sample data.
  const [server, browser] = await Promise.allSettled([
    startOrgsimServe({
      serverDir: join(import.meta.dirname, "../../server"),
      // The API key test (access.test.ts) makes a key, then revokes it: ORGSIM_OPEN=true runs the server open again after,
      // and ORGSIM_KEY_CACHE_MS=0 makes both take effect at once.
      env: {
        ORGSIM_BACKEND: "embedded",
        ORGSIM_DATA_DIR: dataDir,
        ORGSIM_SAMPLE_SIZE: String(TEST_SAMPLE_SIZE),
        ORGSIM_OPEN: "true",
        ORGSIM_KEY_CACHE_MS: "0",
      },
    }),
    chromium.launchServer({ executablePath, headless: true }),
  ]);
  if (server.status === "rejected" || browser.status === "rejected") {
    if (server.status === "fulfilled") await server.value.stop();
    if (browser.status === "fulfilled") await browser.value.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw server.status === "rejected" ? server.reason : (browser as PromiseRejectedResult).reason;
  }
  project.provide("baseUrl", server.value.baseUrl);
  project.provide("dataDir", dataDir);
  project.provide("browserWsEndpoint", browser.value.wsEndpoint());
  return async () => {
    await Promise.all([browser.value.close(), server.value.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  };
}

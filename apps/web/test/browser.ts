/** What every browser test file shares: the run's server and browser (test/global-setup.ts), and a fresh page on the app. */
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect, inject } from "vitest";

export const baseUrl = () => inject("baseUrl");

export const WIDE = { width: 1440, height: 900 };
export const NARROW = { width: 375, height: 812 };

/** Connects to the shared browser for this file; `open` gives a new page (its own context: fresh storage) on the app. */
export function sharedBrowser() {
  let browser: Browser | undefined;
  const pages: Page[] = [];
  beforeAll(async () => {
    browser = await chromium.connect(inject("browserWsEndpoint"));
  });
  afterAll(async () => {
    await browser?.close(); // disconnects; the shared browser runs on for the next file
  });
  return {
    async open(viewport = WIDE): Promise<Page> {
      const context = await browser!.newContext({ viewport, acceptDownloads: true });
      const page = await context.newPage();
      pages.push(page);
      await page.goto(`${baseUrl()}/`);
      await page.getByRole("heading", { name: "Find similar organizations" }).waitFor();
      return page;
    },
  };
}

export const resultNames = async (page: Page) => (await page.locator(".result h3").allTextContents()).map((text) => text.replace(/^\d+\.\s*/, ""));

/** Waits until a search has answered with results other than `before` (the list shown before it was started). */
export async function newResults(page: Page, before: string[]): Promise<string[]> {
  let names: string[] = [];
  await expect
    .poll(async () => {
      if ((await page.locator("section.results[aria-busy='true']").count()) > 0) return false;
      names = await resultNames(page);
      return names.length > 0 && names.join("|") !== before.join("|");
    })
    .toBe(true);
  return names;
}

/** Runs a description search from the form and waits for its first results. */
export async function searchDescription(page: Page, text: string): Promise<string[]> {
  const before = await resultNames(page);
  await page.getByLabel("What the organizations do").fill(text);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  return newResults(page, before);
}

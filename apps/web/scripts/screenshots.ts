/**
 * Takes the README's screenshots of the web app (docs/screenshots/web-1440.png and web-375.png):
 * a real orgsim server on the fictional sample data, driven in Debian's Chromium by playwright-core,
 * as the browser tests do. Run: pnpm --filter @orgsim/web screenshots (it builds the app first).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOrgsimServe } from "@orgsim/testing/serve";
import { chromium, type Page } from "playwright-core";
import { chromiumPath } from "../test/chromium";

const OUT = join(import.meta.dirname, "../../../docs/screenshots");
const WIDTHS = [
  { width: 1440, height: 1000 },
  { width: 375, height: 812 },
];

async function stage(page: Page, baseUrl: string, width: number) {
  await page.goto(`${baseUrl}/`);
  await page.getByLabel("What the organizations do").fill("kitchen robots for restaurants");
  if (width >= 1100) {
    const employees = page.getByRole("group", { name: "Employees", exact: true });
    for (const range of ["1-10", "11-50", "51-200"]) await employees.getByRole("checkbox", { name: range, exact: true }).check();
  }
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await page.locator(".result").first().waitFor();
  const collections = page.getByRole("region", { name: "Collections" });
  if ((await collections.getByRole("heading", { name: "Food robots", exact: true }).count()) === 0) {
    await collections.getByLabel("New collection name").fill("Food robots");
    await collections.getByRole("button", { name: "Create collection" }).click();
    await collections.getByRole("heading", { name: "Food robots", exact: true }).waitFor();
    const first = page.locator(".result").first();
    await first.getByRole("button", { name: /^Save to/ }).click();
    await collections.getByRole("listitem").first().waitFor();
  }
  // Narrow: the results at the top of the screen, below the search form.
  if (width < 1100) await page.evaluate(() => document.querySelector("section.results")?.scrollIntoView());
  // The "saved" note and focus ring are transient: a still picture without them.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
}

const dataDir = mkdtempSync(join(tmpdir(), "orgsim-screenshots-"));
const server = await startOrgsimServe({
  serverDir: join(import.meta.dirname, "../../server"),
  env: { ORGSIM_BACKEND: "embedded", ORGSIM_DATA_DIR: dataDir, ORGSIM_SAMPLE_SIZE: "400" },
});
const browser = await chromium.launch({ executablePath: chromiumPath() });
try {
  mkdirSync(OUT, { recursive: true });
  for (const viewport of WIDTHS) {
    const page = await browser.newPage({ viewport });
    await stage(page, server.baseUrl, viewport.width);
    const path = join(OUT, `web-${viewport.width}.png`);
    await page.screenshot({ path });
    console.log(`wrote ${path}`);
    await page.close();
  }
} finally {
  await browser.close();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

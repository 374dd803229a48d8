/** axe-core's WCAG 2.1 A/AA rules (contrast included) over the app's screens, wide and narrow: no serious or critical violation. */
import axe from "axe-core";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { NARROW, searchDescription, sharedBrowser, WIDE } from "./browser";

const browser = sharedBrowser();

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** The serious and critical violations on the page as it is now, one line each (readable when the test fails). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: typeof axe }).axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return result.violations as unknown as Violation[];
  });
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

describe("accessibility", () => {
  for (const [label, viewport] of [
    ["1440 px", WIDE],
    ["375 px", NARROW],
  ] as const) {
    it(`has no serious or critical axe violation at ${label}: empty, with results, a saved item, an error`, async () => {
      const page = await browser.open(viewport);
      expect(await seriousViolations(page)).toEqual([]);

      const names = await searchDescription(page, "cloud accounting software");
      const collections = page.getByRole("region", { name: "Collections" });
      await collections.getByLabel("New collection name").fill(`Accounting ${label}`);
      await collections.getByRole("button", { name: "Create collection" }).click();
      await page.getByRole("button", { name: `Save to “Accounting ${label}”: ${names[0]}` }).click();
      await collections
        .getByRole("list", { name: `Items of Accounting ${label}` })
        .getByRole("listitem")
        .waitFor();
      // Organization mode with its type-ahead open.
      await page.getByRole("radio", { name: "Known organizations" }).check();
      await page.getByRole("combobox", { name: "Like these organizations" }).fill(names[1]!.split(" ")[0]!);
      await page.getByRole("listbox", { name: "Like these organizations" }).getByRole("option").first().waitFor();
      expect(await seriousViolations(page)).toEqual([]);

      // An error shown.
      await page.getByRole("radio", { name: "A description" }).check();
      if (viewport === NARROW) await page.getByText("Filters", { exact: true }).click();
      const employees = page.getByRole("group", { name: "Employee count" });
      await employees.getByLabel("From").fill("500");
      await employees.getByLabel("To").fill("10");
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await page.getByRole("alert").waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    });
  }
});

/** Searching in the browser: filters, paging, the other modes, errors, and the keyboard alone. */
import { countryName } from "@orgsim/core/browser";
import { generateSampleOrganizations } from "@orgsim/sample-data";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { newResults, resultNames, searchDescription, sharedBrowser } from "./browser";
import { TEST_SAMPLE_SIZE } from "./global-setup";

const browser = sharedBrowser();
const sample = generateSampleOrganizations({ count: TEST_SAMPLE_SIZE });

describe("search", () => {
  it("searches a description with filters, and every result holds to them", async () => {
    const page = await browser.open();
    // Ground truth from the sample the server loaded: German organizations with 11-50 or 51-200 people.
    const expected = sample.filter((o) => o.location?.headquarters?.country_code === "DE" && ["11-50", "51-200"].includes(o.metrics?.employee_range ?? ""));
    expect(expected.length).toBeGreaterThan(1);

    const location = page.getByRole("group", { name: "Countries and regions" });
    await location.getByRole("searchbox").fill("germ");
    await location.getByRole("checkbox", { name: /Germany \(DE\)/ }).check();
    await expect.poll(() => location.getByRole("button", { name: /Remove Germany/ }).count()).toBe(1);
    const employees = page.getByRole("group", { name: "Employees", exact: true });
    await employees.getByRole("checkbox", { name: "11-50" }).check();
    await employees.getByRole("checkbox", { name: "51-200" }).check();
    await expect.poll(() => page.getByRole("heading", { name: "Filters (2)" }).count()).toBe(1);

    const names = await searchDescription(page, "software for manufacturers");
    const expectedNames = new Set(expected.map((o) => o.name));
    expect(names.length).toBe(Math.min(10, expected.length));
    for (const name of names) expect(expectedNames.has(name)).toBe(true);
    // Each card says where it is, the score and similarity, and why it is there.
    const first = page.locator(".result").first();
    await expect(first.textContent()).resolves.toContain(countryName("DE")!);
    await expect(first.textContent()).resolves.toMatch(/Score \d/);
    await expect(first.textContent()).resolves.toMatch(/Similarity -?\d/);
    await expect(first.locator(".why").textContent()).resolves.toMatch(/^Why:/);
  });

  it("pages through the results by cursor, without repeats", async () => {
    const page = await browser.open();
    await searchDescription(page, "payments platform for online shops");
    expect(await page.locator(".result").count()).toBe(10);
    await page.getByRole("button", { name: "Show more results" }).click();
    await expect.poll(() => page.locator(".result").count()).toBe(20);
    await page.getByRole("button", { name: "Show more results" }).click();
    await expect.poll(() => page.locator(".result").count()).toBe(30);
    expect(new Set(await resultNames(page)).size).toBe(30);
    // Ranks run on across pages: 1 … 30.
    const ranks = await page.locator(".result .rank").allTextContents();
    expect(ranks.map((rank) => Number.parseInt(rank, 10))).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it("shows an API error with its message and request id, and the empty state", async () => {
    const page = await browser.open();
    const founded = page.getByRole("group", { name: "Founded (year)" });
    await founded.getByLabel("From").fill("2020");
    await founded.getByLabel("To").fill("2010");
    await page.getByLabel("What the organizations do").fill("robots");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    const text = await alert.textContent();
    expect(text).toContain("founded_year_min (2020) is greater than founded_year_max (2010)");
    expect(text).toMatch(/Request id: \S+/);

    // A range nothing falls in: the empty state, not an error.
    await founded.getByLabel("From").fill("1600");
    await founded.getByLabel("To").fill("1601");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.getByText("No organization matches").waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
  });

  it("searches from known organizations (type-ahead, several examples, a counter-example) and a customer base", async () => {
    const page = await browser.open();
    const [like1, like2, unlike] = [sample[0]!, sample[1]!, sample[2]!];
    await page.getByRole("radio", { name: "Known organizations" }).check();
    for (const [label, org] of [
      ["Like these organizations", like1],
      ["Like these organizations", like2],
      ["But not like these (optional)", unlike],
    ] as const) {
      await page.getByRole("combobox", { name: label }).fill(org.name.split(" ")[0]!);
      await page
        .getByRole("listbox", { name: label })
        .getByRole("option", { name: new RegExp(`^${org.name}`) })
        .click();
      // A pick empties the box when React renders it: typing the next name before that would be wiped.
      await expect.poll(() => page.getByRole("combobox", { name: label }).inputValue()).toBe("");
    }
    // React renders a picked seed after the click returns: wait for it.
    await expect.poll(() => page.getByRole("list", { name: "Like", exact: true }).getByRole("button").count()).toBe(2);
    await expect.poll(() => page.getByRole("list", { name: "Not like" }).getByRole("button").count()).toBe(1);
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const names = await newResults(page, []);
    expect(names).toHaveLength(10);
    // Seeds are never among the results.
    for (const seed of [like1, like2, unlike]) expect(names).not.toContain(seed.name);

    await page.getByRole("radio", { name: "A customer base" }).check();
    await page.getByLabel("Who their customers are").fill("restaurant chains");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await newResults(page, names);
  });

  it("is usable from the keyboard alone: type, search, open more like a result", async () => {
    const page = await browser.open();
    const focused = () =>
      page.evaluate(
        () =>
          (document.activeElement as HTMLElement | null)?.getAttribute("aria-label") ?? document.activeElement?.textContent ?? document.activeElement?.tagName,
      );
    /** Tabs until `matches` holds for the focused element (at most `limit` presses). */
    const tabTo = async (matches: () => Promise<boolean>, limit = 80) => {
      for (let i = 0; i < limit; i++) {
        if (await matches()) return;
        await page.keyboard.press("Tab");
      }
      throw new Error(`not reached by Tab; focus is on ${await focused()}`);
    };
    const isFocused = (locator: ReturnType<Page["locator"]>) => locator.evaluate((el) => el === document.activeElement);

    const description = page.getByLabel("What the organizations do");
    await tabTo(() => isFocused(description));
    await page.keyboard.type("kitchen robots for restaurants");
    const searchButton = page.getByRole("button", { name: "Search", exact: true });
    await tabTo(() => isFocused(searchButton));
    await page.keyboard.press("Enter");
    const [firstName] = await newResults(page, []);

    const moreLike = page.getByRole("button", { name: `More like this: ${firstName}` });
    await tabTo(() => isFocused(moreLike), 200);
    await page.keyboard.press("Enter");
    // Now a search from that organization: it shows as the one example, and is not among its own results.
    await page
      .getByRole("list", { name: "Like" })
      .getByRole("button", { name: `Remove ${firstName} from like` })
      .waitFor();
    await page.getByRole("status").filter({ hasText: "Searching" }).waitFor({ state: "detached" });
    await expect.poll(() => page.locator(".result").count()).toBe(10);
    expect((await resultNames(page)).some((n) => n.endsWith(` ${firstName}`))).toBe(false);

    // The type-ahead by keys: type, arrow down, Enter.
    const like = page.getByRole("combobox", { name: "Like these organizations" });
    await tabTo(() => isFocused(like), 200);
    await page.keyboard.type(sample[5]!.name.split(" ")[0]!);
    await page.getByRole("listbox", { name: "Like these organizations" }).getByRole("option").first().waitFor();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByRole("list", { name: "Like", exact: true }).getByRole("button").count()).toBe(2);
  });
});

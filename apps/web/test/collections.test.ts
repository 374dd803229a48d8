/** Collections in the browser: create, save results (and the one-type rule's 409), edit, export, delete. */
import { buffer } from "node:stream/consumers";
import type { Download, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { baseUrl, searchDescription, sharedBrowser } from "./browser";

const browser = sharedBrowser();

/** A download's bytes (the browser runs as a server of its own, so the file is streamed over, not read from its disk). */
const contentOf = async (download: Download) => buffer(await download.createReadStream());

const panel = (page: Page) => page.getByRole("region", { name: "Collections" });

async function createCollection(page: Page, name: string, holds?: string) {
  await panel(page).getByLabel("New collection name").fill(name);
  if (holds) await panel(page).getByLabel("Holds").selectOption({ label: holds });
  await panel(page).getByRole("button", { name: "Create collection" }).click();
  await panel(page).getByRole("heading", { name, exact: true }).waitFor();
}

/** The REST API's view of the collection, to check what the app did. */
async function itemsOf(collectionName: string) {
  const list = (await (await fetch(`${baseUrl()}/v1/collections?limit=100`)).json()) as { data: { id: string; name: string }[] };
  const collection = list.data.find((c) => c.name === collectionName);
  if (!collection) return null;
  const items = (await (await fetch(`${baseUrl()}/v1/collections/${collection.id}/items?limit=100`)).json()) as {
    data: { entity_id: string; notes: string | null; tags: string[] }[];
  };
  return items.data;
}

describe("collections", () => {
  it("saves results into a new collection, refuses a collection of another type with a clear message, edits and removes items", async () => {
    const page = await browser.open();
    const names = await searchDescription(page, "robotic kitchen systems");
    await createCollection(page, "Kitchen robots");
    await page.getByRole("button", { name: `Save to “Kitchen robots”: ${names[0]}` }).click();
    await page.getByRole("button", { name: `Save to “Kitchen robots”: ${names[1]}` }).click();
    const items = panel(page).getByRole("list", { name: "Items of Kitchen robots" });
    await expect.poll(() => items.getByRole("listitem").count()).toBe(2);
    await expect.poll(async () => (await itemsOf("Kitchen robots"))?.length).toBe(2);

    // A collection of people: an organization does not go in it (409 ENTITY_TYPE_MISMATCH), and the page says why.
    await createCollection(page, "Contacts", "Person items");
    await page.getByRole("button", { name: `Save to “Contacts”: ${names[0]}` }).click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    const text = (await alert.textContent()) ?? "";
    expect(text).toContain("“Contacts” holds another type of item, so an organization cannot be added to it");
    expect(text).toContain("person");
    expect(text).toContain("Code: ENTITY_TYPE_MISMATCH");
    expect(text).toMatch(/Request id: \S+/);
    expect(await itemsOf("Contacts")).toEqual([]);
    // The page still works: back to the first collection.
    await panel(page).getByLabel("Save results to").selectOption({ label: "Kitchen robots (2, organization)" });
    await expect.poll(() => items.getByRole("listitem").count()).toBe(2);

    // Notes and tags.
    await items.getByRole("button", { name: `Edit notes and tags of ${names[0]}` }).click();
    await items.getByLabel("Notes", { exact: true }).fill("strong fit, call in Q3");
    await items.getByLabel("Tags (separated by commas)").fill("q3, robotics");
    await items.getByRole("button", { name: "Save changes" }).click();
    await items.getByText("Tags: q3, robotics").waitFor();
    const edited = (await itemsOf("Kitchen robots"))!.find((i) => i.notes !== null);
    expect(edited).toMatchObject({ notes: "strong fit, call in Q3", tags: ["q3", "robotics"] });

    // Removing an item.
    await items.getByRole("button", { name: `Remove ${names[1]} from the collection` }).click();
    await expect.poll(() => items.getByRole("listitem").count()).toBe(1);
    await expect.poll(async () => (await itemsOf("Kitchen robots"))?.length).toBe(1);
  });

  it("exports a collection as CSV and NDJSON downloads, the same file REST sends", async () => {
    const page = await browser.open();
    const names = await searchDescription(page, "humanoid robots");
    await createCollection(page, "Humanoids, 2026");
    for (const name of names.slice(0, 3)) await page.getByRole("button", { name: `Save to “Humanoids, 2026”: ${name}` }).click();
    const items = panel(page).getByRole("list", { name: "Items of Humanoids, 2026" });
    await expect.poll(() => items.getByRole("listitem").count()).toBe(3);

    const [csv] = await Promise.all([page.waitForEvent("download"), panel(page).getByRole("button", { name: "Export CSV" }).click()]);
    expect(csv.suggestedFilename()).toBe("humanoids-2026.csv");
    const csvBytes = await contentOf(csv);
    const csvText = csvBytes.toString("utf8");
    const list = (await (await fetch(`${baseUrl()}/v1/collections?limit=100`)).json()) as { data: { id: string; name: string }[] };
    const id = list.data.find((c) => c.name === "Humanoids, 2026")!.id;
    const rest = await fetch(`${baseUrl()}/v1/collections/${id}/export?format=csv`);
    // Byte for byte: the byte-order mark too, which a text decoder would drop.
    expect(csvBytes.equals(Buffer.from(await rest.arrayBuffer()))).toBe(true);
    expect(csvText.startsWith("\uFEFFitem_id,entity_type,entity_id,notes,tags,created_at,updated_at,organization_found,name")).toBe(true);
    for (const name of names.slice(0, 3)) expect(csvText).toContain(name);

    const [ndjson] = await Promise.all([page.waitForEvent("download"), panel(page).getByRole("button", { name: "Export NDJSON" }).click()]);
    expect(ndjson.suggestedFilename()).toBe("humanoids-2026.ndjson");
    const lines = (await contentOf(ndjson)).toString("utf8").trim().split("\n");
    const restLines = (await (await fetch(`${baseUrl()}/v1/collections/${id}/export?format=ndjson`)).text()).trim().split("\n");
    expect(lines.map((line) => JSON.parse(line))).toEqual(restLines.map((line) => JSON.parse(line)));
    expect(lines.map((line) => JSON.parse(line).organization.name).sort()).toEqual(names.slice(0, 3).sort());
  });

  it("deletes a collection after asking", async () => {
    const page = await browser.open();
    await createCollection(page, "Short-lived");
    await panel(page).getByRole("button", { name: "Delete collection" }).click();
    await panel(page).getByRole("button", { name: "Yes, delete “Short-lived”" }).click();
    await expect.poll(() => panel(page).getByRole("heading", { name: "Short-lived" }).count()).toBe(0);
    await expect.poll(async () => await itemsOf("Short-lived")).toBeNull();
  });
});

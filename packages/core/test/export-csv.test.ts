/** The CSV of an export: what a spreadsheet reads back, cell by cell (parsed with csv-parse, as a reader would). */
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { csvCell, csvColumns, type ExportedItem, fileSlug } from "../src";
import { csvChunks } from "../src/services/export-csv";

const item = (overrides: Partial<ExportedItem>): ExportedItem => ({
  id: "itm_1",
  collection_id: "col_1",
  entity_type: "person",
  entity_id: "p1",
  entity: null,
  notes: null,
  tags: [],
  created_at: "2026-01-02T03:04:05.000Z",
  updated_at: "2026-01-02T03:04:05.000Z",
  ...overrides,
});

async function csvOf(type: Parameters<typeof csvColumns>[0], rows: ExportedItem[]): Promise<string> {
  async function* pages() {
    yield rows.slice(0, 1);
    yield [];
    yield rows.slice(1);
  }
  let text = "";
  for await (const chunk of csvChunks(type, pages())) text += chunk;
  return text;
}

describe("CSV cells", () => {
  it("prefixes text that a spreadsheet would run as a formula with a single quote, and nothing else", () => {
    for (const risky of ['=HYPERLINK("http://x.example","y")', "+1", "-2", "@x", "\tTab", "\rCR"]) expect(csvCell(risky)).toBe(`'${risky}`);
    for (const plain of ["Acme", " =padded", "a=b", "1+1", "", "'quoted"]) expect(csvCell(plain)).toBe(plain);
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell(42)).toBe("42");
  });

  it("names files after the collection in ASCII, or its id when the name has no letters or digits", () => {
    expect(fileSlug({ id: "col_x", name: "Prospects à Paris — Été 2026!" })).toBe("prospects-a-paris-ete-2026");
    expect(fileSlug({ id: "col_x", name: "日本の会社" })).toBe("col_x");
    expect(fileSlug({ id: "col_x", name: `${"a".repeat(79)} b` })).toBe("a".repeat(79));
  });
});

describe("CSV files", () => {
  it("starts with a BOM and a header, ends records with CRLF, and quotes what RFC 4180 says to quote", async () => {
    const rows = [
      item({ notes: 'says "hi", then\nleaves', tags: ["a", "b"], entity: { full_name: "Zoë Ørsted", investors: undefined } }),
      item({ id: "itm_2", entity_id: "p2", notes: "=1+1", entity: { email: "z@example.com", organization_id: 7 } }),
    ];
    const text = await csvOf("person", rows);
    expect(text.startsWith("\uFEFFitem_id,entity_type,entity_id,notes,tags,created_at,updated_at,full_name,title,email,linkedin_url,organization_id\r\n")).toBe(
      true,
    );
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text).toContain('"says ""hi"", then\nleaves"');

    const records = parse(text, { bom: true, columns: true }) as Record<string, string>[];
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ item_id: "itm_1", notes: 'says "hi", then\nleaves', tags: "a; b", full_name: "Zoë Ørsted", email: "" });
    expect(records[1]).toMatchObject({ notes: "'=1+1", email: "z@example.com", organization_id: "7" });
  });

  it("flattens the current organization, and leaves its columns empty (organization_found false) when it is gone", async () => {
    const organization = {
      id: 7,
      name: "-Minus Corp",
      description: null,
      domain: "minus.example",
      logo_url: null,
      categories: ["fintech", "payments"],
      customer_description: null,
      metrics: {
        employee_count: 12,
        employee_range: "11-50",
        founded_on: null,
        founded_year: 2019,
        funding: { total_raised_usd: 5_000_000, rounds_count: 2, last_round: { stage: "seed", announced_on: "2024-02-01", amount_usd: 3_000_000 } },
      },
      location: {
        headquarters: {
          address_line: null,
          city: "Lyon",
          subdivision_code: "FR-ARA",
          postal_code: null,
          country_code: "FR",
          country: "France",
          world_region: "western-europe",
        },
        offices: [],
      },
      contact: { website: "https://minus.example", email: null, phone: null, social: { linkedin: null, twitter: null, github: null } },
      fictional: true,
    } as ExportedItem["organization"];
    const rows = [
      item({ entity_type: "organization", entity_id: "7", organization }),
      item({ id: "itm_2", entity_type: "organization", entity_id: "8", organization: null, notes: "gone" }),
    ];
    const records = parse(await csvOf("organization", rows), { bom: true, columns: true }) as Record<string, string>[];
    expect(Object.keys(records[0] as object)).toEqual(csvColumns("organization").map((c) => c.name));
    expect(records[0]).toMatchObject({
      organization_found: "true",
      name: "'-Minus Corp",
      categories: "fintech; payments",
      hq_city: "Lyon",
      hq_subdivision_code: "FR-ARA",
      hq_country_code: "FR",
      employee_count: "12",
      employee_range: "11-50",
      founded_year: "2019",
      last_round_stage: "seed",
      last_round_date: "2024-02-01",
      last_round_amount_usd: "3000000",
      total_raised_usd: "5000000",
      website: "https://minus.example",
    });
    expect(records[1]).toMatchObject({ entity_id: "8", notes: "gone", organization_found: "false", name: "", domain: "", hq_city: "" });
  });

  it("writes only the header for an empty collection of no type yet", async () => {
    expect(await csvOf(null, [])).toBe("\uFEFFitem_id,entity_type,entity_id,notes,tags,created_at,updated_at\r\n");
  });
});

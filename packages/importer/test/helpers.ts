import { fileURLToPath } from "node:url";
import {
  type Embedder,
  type Organization,
  type OrganizationRecord,
  OrganizationService,
  type OrganizationStore,
  type OrganizationWithId,
  type VectorModel,
} from "@orgsim/core";

export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
export const exampleMapping = (name: string) => fileURLToPath(new URL(`../../../examples/mappings/${name}`, import.meta.url));
export const example = (name: string) => fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url));

/** The fixture companies.csv's mapping. */
export const csvMapping = {
  format: "csv",
  id: "Company ID",
  fields: {
    name: "Company Name",
    description: "About",
    website: { from: "Website", transform: "url" },
    domain: { from: "Website", transform: "domain_from_url" },
    employee_count: { from: "Employees", transform: "int" },
    founded_on: { from: "Founded", transform: "date" },
    "headquarters.city": "City",
    "headquarters.subdivision_code": { from: "State", transform: { subdivision: { country_from: "Country" } } },
    "headquarters.country_code": { from: "Country", transform: "country" },
    categories: {
      from: "Tags",
      transform: [{ split: ";" }, { lookup: { Analytics: "data-infrastructure", Retail: "retail-tech", Accounting: "accounting-and-tax" } }],
    },
  },
};

/** The fixture companies.json's mapping (its records at data.companies). */
export const jsonMapping = {
  format: "json",
  records: "data.companies",
  id: "id",
  fields: {
    name: "company.name",
    description: "company.about",
    "headquarters.city": "hq.city",
    "headquarters.subdivision_code": { from: "hq.state", transform: { subdivision: { country_from: "hq.country" } } },
    "headquarters.country_code": { from: "hq.country", transform: "country" },
  },
};

/** The fixture given-vectors.ndjson's mapping: both vectors given (bring your own embeddings). */
export const givenVectorsMapping = {
  format: "ndjson",
  id: "id",
  fields: { name: "name", description: "description", customer_description: "customers", profile_vector: "embedding", customer_vector: "customer_embedding" },
};

/** The injected sink: records every call. */
export function recordingUpsert() {
  const calls: OrganizationWithId[][] = [];
  const upsert = async (rows: OrganizationWithId[]) => {
    calls.push(rows.map((r) => structuredClone(r)));
  };
  /** The last row written per id, as a store keyed by id would hold it. */
  const store = () => {
    const byId = new Map<number, OrganizationWithId>();
    for (const call of calls) for (const row of call) byId.set(row.id, row);
    return byId;
  };
  return { upsert, calls, store };
}

/**
 * The real OrganizationService over an in-memory store and a tiny
 * deterministic embedder (no model needed): exercises upsertMany's own rules.
 * `embedded` lists every text the embedder was given.
 */
export function inMemoryService() {
  const rows = new Map<number, OrganizationRecord>();
  let model: VectorModel | null = null;
  const store: OrganizationStore = {
    backend: "embedded",
    vectorModel: async () => model,
    upsert: async (records, m) => {
      model = m;
      for (const record of records) rows.set(record.organization.id, record);
    },
    get: async (id) => rows.get(id)?.organization ?? null,
    getMany: async (ids) => ids.flatMap((id) => (rows.has(id) ? [(rows.get(id) as OrganizationRecord).organization] : [])),
    getVector: async (id, kind) => (kind === "profile" ? (rows.get(id)?.profileVector ?? null) : (rows.get(id)?.customerVector ?? null)),
    delete: async (id) => rows.delete(id),
    count: async () => rows.size,
    search: async () => {
      throw new Error("not used by the importer tests");
    },
    rank: async () => {
      throw new Error("not used by the importer tests");
    },
    searchText: async () => {
      throw new Error("not used by the importer tests");
    },
    termStatistics: async () => {
      throw new Error("not used by the importer tests");
    },
    organizationTermStatistics: async () => {
      throw new Error("not used by the importer tests");
    },
    similarities: async () => {
      throw new Error("not used by the importer tests");
    },
    customerBaseFigures: async () => {
      throw new Error("not used by the importer tests");
    },
    lookUp: async () => {
      throw new Error("not used by the importer tests");
    },
    ping: async () => true,
    close: async () => {},
  };
  const embedded: string[] = [];
  const embedder: Embedder = {
    modelId: "test-hash-4d",
    dimension: 4,
    embed: async (texts) => {
      embedded.push(...texts);
      return texts.map((text) => {
        const v = new Float32Array(4);
        for (let i = 0; i < text.length; i++) v[i % 4] = (v[i % 4] as number) + text.charCodeAt(i);
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
    },
    close: async () => {},
  };
  const service = new OrganizationService(store, embedder);
  const snapshot = () => [...rows.values()].map((r) => r.organization).sort((a: Organization, b: Organization) => a.id - b.id);
  return { service, snapshot, store, embedded };
}

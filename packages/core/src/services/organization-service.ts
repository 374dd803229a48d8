/** Organization writes and reads: validation, normalization and both vectors. */
import { customerTextOf, profileTextOf } from "../domain/embedding-text";
import { normalizeOrganization } from "../domain/normalize-organization";
import { categoryName } from "../domain/taxonomy";
import { OrgsimError, type ValidationIssue } from "../errors";
import type { Embedder } from "../ports/embedder";
import type { OrganizationRecord, OrganizationStore } from "../ports/organization-store";
import { Organization, OrganizationWithId } from "../schemas/organization";
import { assertSameModel } from "./model-check";

/** A request's limit (REST, tRPC, MCP and the importer's batches); the service itself writes any number atomically. */
export const MAX_BULK_ORGANIZATIONS = 1000;
const EMBED_CHUNK = 100;

export class OrganizationService {
  constructor(
    private readonly store: OrganizationStore,
    private readonly embedder: Embedder,
  ) {}

  async get(id: number): Promise<Organization> {
    const organization = await this.store.get(id);
    if (!organization) throw OrgsimError.notFound("organization", id);
    return organization;
  }

  async upsert(input: OrganizationWithId): Promise<Organization> {
    const [organization] = await this.upsertMany([input]);
    return organization as Organization;
  }

  /**
   * Validates every organization first, then embeds and writes them together:
   * one invalid organization writes nothing and names its index.
   */
  async upsertMany(inputs: unknown[], options: { onEmbedded?: (done: number, total: number) => void } = {}): Promise<Organization[]> {
    const issues: ValidationIssue[] = [];
    const organizations: Organization[] = [];
    const seen = new Set<number>();
    inputs.forEach((raw, index) => {
      const prefix = inputs.length > 1 ? [index] : [];
      const parsed = OrganizationWithId.safeParse(raw);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) issues.push({ path: [...prefix, ...issue.path.map(keyOf)], message: issue.message });
        return;
      }
      if (seen.has(parsed.data.id)) issues.push({ path: [...prefix, "id"], message: `organization ${parsed.data.id} appears twice in one request` });
      seen.add(parsed.data.id);
      // The schema already ran the normalization checks (organizationIssues), so this cannot refuse.
      const organization = normalizeOrganization(parsed.data);
      // What is stored must read back: the derived record is checked against the read schema too.
      const stored = Organization.safeParse(organization);
      if (!stored.success) {
        for (const issue of stored.error.issues) issues.push({ path: [...prefix, ...inputPathOf(issue.path.map(keyOf))], message: issue.message });
        return;
      }
      organizations.push(organization);
    });
    if (issues.length > 0) {
      const failing = [...new Set(issues.map((i) => i.path[0]).filter((p): p is number => typeof p === "number"))];
      const error = OrgsimError.validation(issues);
      if (inputs.length > 1) error.details.failing_indexes = failing;
      throw error;
    }
    await assertSameModel(this.store, this.embedder);
    const records: OrganizationRecord[] = [];
    for (let start = 0; start < organizations.length; start += EMBED_CHUNK) {
      records.push(...(await this.embedAll(organizations.slice(start, start + EMBED_CHUNK))));
      options.onEmbedded?.(records.length, organizations.length);
    }
    // One write for all: a crash mid-way leaves the store as it was.
    await this.store.upsert(records, { modelId: this.embedder.modelId, dimension: this.embedder.dimension });
    return organizations;
  }

  /** Embeds the profile text of every organization and the customer text of those that have one. */
  async embedAll(organizations: Organization[]): Promise<OrganizationRecord[]> {
    const profileVectors = await this.embedder.embed(
      organizations.map((o) => profileTextOf(o, categoryName)),
      "document",
    );
    const customerTexts = organizations.map(customerTextOf);
    const withCustomers = customerTexts.flatMap((text, i) => (text ? [i] : []));
    const customerVectors = await this.embedder.embed(
      withCustomers.map((i) => customerTexts[i] as string),
      "document",
    );
    const customerByIndex = new Map(withCustomers.map((orgIndex, k) => [orgIndex, customerVectors[k] as Float32Array]));
    return organizations.map((organization, i) => ({
      organization,
      profileVector: profileVectors[i] as Float32Array,
      customerVector: customerByIndex.get(i) ?? null,
    }));
  }

  async delete(id: number): Promise<void> {
    if (!(await this.store.delete(id))) throw OrgsimError.notFound("organization", id);
  }

  count(): Promise<number> {
    return this.store.count();
  }
}

/** The input field a derived field comes from, so an error names what the caller sent. */
const SOURCE_OF_DERIVED: Record<string, string> = {
  founded_year: "founded_on",
  employee_range: "employee_count",
  country: "country_code",
  world_region: "country_code",
};
const inputPathOf = (path: (string | number)[]) =>
  path.map((key, i) => (i === path.length - 1 && typeof key === "string" ? (SOURCE_OF_DERIVED[key] ?? key) : key));

const keyOf = (key: PropertyKey) => (typeof key === "symbol" ? String(key) : key);

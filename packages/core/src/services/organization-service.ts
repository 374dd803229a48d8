/** Organization writes and reads: validation, normalization and both vectors. */
import { customerTextOf, profileTextOf } from "../domain/embedding-text";
import { normalizeOrganization } from "../domain/normalize-organization";
import { categoryName } from "../domain/taxonomy";
import { OrgsimError, type ValidationIssue } from "../errors";
import type { Embedder } from "../ports/embedder";
import type { OrganizationRecord, OrganizationStore, VectorModel } from "../ports/organization-store";
import { type GivenVectors, givenVector } from "../rules/vector-model";
import { Organization, OrganizationWithId } from "../schemas/organization";
import type { FindOrganizationsInput, OrganizationPage } from "../schemas/lookup";
import { assertSameModel } from "./model-check";
import { findOrganizations } from "./organization-lookup";

/** A request's limit (REST, tRPC, MCP and the importer's batches); the service itself writes any number atomically. */
export const MAX_BULK_ORGANIZATIONS = 1000;
const EMBED_CHUNK = 100;

/** Given vectors after their checks: of the model's dimension, unit length. */
type StoredVectors = { profile?: Float32Array; customer?: Float32Array };

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

  /** By name words (type-ahead) and/or domain, best first. */
  find(input: FindOrganizationsInput): Promise<OrganizationPage> {
    return findOrganizations(this.store, input);
  }

  async upsert(input: OrganizationWithId): Promise<Organization> {
    const [organization] = await this.upsertMany([input]);
    return organization as Organization;
  }

  /**
   * Validates every organization first, then embeds and writes them together:
   * one invalid organization writes nothing and names its index. `givenVectors[i]`, when set,
   * holds vectors computed elsewhere for `inputs[i]`: those are stored (normalized) instead of embedded.
   */
  async upsertMany(
    inputs: unknown[],
    options: { onEmbedded?: (done: number, total: number) => void; givenVectors?: readonly (GivenVectors | undefined)[] } = {},
  ): Promise<Organization[]> {
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
    const model = { modelId: this.embedder.modelId, dimension: this.embedder.dimension };
    const given = (options.givenVectors ?? []).map((vectors, index) => this.checkedVectors(vectors, model, inputs.length > 1 ? [index] : [], issues));
    if (issues.length > 0) {
      const failing = [...new Set(issues.map((i) => i.path[0]).filter((p): p is number => typeof p === "number"))];
      const error = OrgsimError.validation(issues);
      if (inputs.length > 1) error.details.failing_indexes = failing;
      throw error;
    }
    await assertSameModel(this.store, this.embedder);
    const records: OrganizationRecord[] = [];
    for (let start = 0; start < organizations.length; start += EMBED_CHUNK) {
      records.push(...(await this.embedAll(organizations.slice(start, start + EMBED_CHUNK), given.slice(start, start + EMBED_CHUNK))));
      options.onEmbedded?.(records.length, organizations.length);
    }
    // One write for all: a crash mid-way leaves the store as it was.
    await this.store.upsert(records, model);
    return organizations;
  }

  /** Given vectors as stored, or their problems added to `issues` (under `profile_vector` / `customer_vector`). */
  private checkedVectors(vectors: GivenVectors | undefined, model: VectorModel, prefix: (string | number)[], issues: ValidationIssue[]): StoredVectors {
    const out: StoredVectors = {};
    for (const kind of ["profile", "customer"] as const) {
      const vector = vectors?.[kind];
      if (!vector) continue;
      const checked = givenVector(vector, model);
      if (typeof checked === "string") issues.push({ path: [...prefix, `${kind}_vector`], message: checked });
      else out[kind] = checked;
    }
    return out;
  }

  /**
   * Embeds the profile text of every organization and the customer text of those that have one,
   * except where `given[i]` already holds that vector.
   */
  async embedAll(organizations: Organization[], given: readonly StoredVectors[] = []): Promise<OrganizationRecord[]> {
    const withoutProfile = organizations.flatMap((_, i) => (given[i]?.profile ? [] : [i]));
    const profileByIndex = await this.embedAt(withoutProfile, (i) => profileTextOf(organizations[i] as Organization, categoryName));
    // The customer text is looked for only where no customer vector is given (its sentence scan is a large part of an import's time).
    const customerTexts = organizations.map((organization, i) => (given[i]?.customer ? null : customerTextOf(organization)));
    const withCustomers = customerTexts.flatMap((text, i) => (text ? [i] : []));
    const customerByIndex = await this.embedAt(withCustomers, (i) => customerTexts[i] as string);
    return organizations.map((organization, i) => ({
      organization,
      profileVector: given[i]?.profile ?? (profileByIndex.get(i) as Float32Array),
      customerVector: given[i]?.customer ?? customerByIndex.get(i) ?? null,
    }));
  }

  /** The vectors of `textOf(i)` for each index, by index; the embedder is not called when there is nothing to embed. */
  private async embedAt(indexes: number[], textOf: (index: number) => string): Promise<Map<number, Float32Array>> {
    if (indexes.length === 0) return new Map();
    const vectors = await this.embedder.embed(indexes.map(textOf), "document");
    return new Map(indexes.map((index, k) => [index, vectors[k] as Float32Array]));
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

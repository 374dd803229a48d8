/**
 * The organization store as services read it: every organization a read returns is checked
 * against the read schema (`Organization`). A stored record that fails it (written by an older
 * version, or edited outside the server) is logged once by id, counted for /ready, and left out of
 * searches and lists, so one bad record never fails a request that merely includes it.
 */
import { OrgsimError } from "../errors";
import type {
  CustomerBaseFigures,
  LookupQuery,
  LookupTiers,
  OrganizationFilter,
  OrganizationRecord,
  OrganizationStore,
  ScoredId,
  ScoredOrganization,
  TermStatistics,
  TextTermStatistics,
  TextQuery,
  VectorKind,
  VectorModel,
  VectorQuery,
} from "../ports/organization-store";
import { Organization } from "../schemas/organization";

export class ReadableOrganizationStore implements OrganizationStore {
  /** Ids of stored organizations found unreadable (until rewritten or deleted). */
  private readonly unreadable = new Set<number>();

  constructor(
    private readonly store: OrganizationStore,
    private readonly log: (line: string) => void = (line) => console.error(line),
  ) {}

  get backend() {
    return this.store.backend;
  }

  /** How many stored organizations reads found unreadable and left out. */
  unreadableCount(): number {
    return this.unreadable.size;
  }

  /** An unreadable organization asked for by id is an error that says so (not a silent 404). */
  async get(id: number): Promise<Organization | null> {
    const stored = await this.store.get(id);
    if (stored === null) return null;
    const organization = this.readable(stored);
    if (!organization) throw new OrgsimError("INTERNAL", `Organization ${id} is stored but cannot be read; replace it (PUT) or delete it`, { id });
    return organization;
  }

  async getMany(ids: number[]): Promise<Organization[]> {
    return (await this.store.getMany(ids)).flatMap((stored) => this.readable(stored) ?? []);
  }

  /** Rankings leave out what reads found unreadable, so offsets and page sizes count readable records only. */
  async search(query: VectorQuery): Promise<ScoredOrganization[]> {
    for (;;) {
      const known = this.unreadable.size;
      const hits = (await this.store.search(this.withoutUnreadable(query))).flatMap(({ organization: stored, score }) => {
        const organization = this.readable(stored);
        return organization ? [{ organization, score }] : [];
      });
      // A record found unreadable just now took a place of this page: rank again without it.
      if (this.unreadable.size === known) return hits;
    }
  }

  async upsert(records: OrganizationRecord[], model: VectorModel): Promise<void> {
    await this.store.upsert(records, model);
    for (const { organization } of records) this.unreadable.delete(organization.id);
  }

  async delete(id: number): Promise<boolean> {
    const deleted = await this.store.delete(id);
    this.unreadable.delete(id);
    return deleted;
  }

  /** The organization parsed by the read schema, or null (logged once per id) when it fails. */
  private readable(stored: Organization): Organization | null {
    const parsed = Organization.safeParse(stored);
    if (parsed.success) return parsed.data;
    const id = typeof stored?.id === "number" ? stored.id : Number.NaN;
    if (!this.unreadable.has(id)) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "record"}: ${i.message}`).join("; ");
      this.log(`organization ${id} is stored but unreadable, left out of results: ${problems}`);
    }
    this.unreadable.add(id);
    return null;
  }

  vectorModel(): Promise<VectorModel | null> {
    return this.store.vectorModel();
  }
  getVector(id: number, kind: VectorKind): Promise<Float32Array | null> {
    return this.store.getVector(id, kind);
  }
  count(): Promise<number> {
    return this.store.count();
  }
  rank(query: VectorQuery): Promise<ScoredId[]> {
    return this.store.rank(this.withoutUnreadable(query));
  }
  searchText(query: TextQuery): Promise<number[]> {
    return this.store.searchText(this.withoutUnreadable(query));
  }

  private withoutUnreadable<Q extends { filter: OrganizationFilter }>(query: Q): Q {
    if (this.unreadable.size === 0) return query;
    return { ...query, filter: { ...query.filter, excludeIds: [...(query.filter.excludeIds ?? []), ...this.unreadable] } };
  }
  termStatistics(terms: readonly string[], kind: VectorKind): Promise<TermStatistics> {
    return this.store.termStatistics(terms, kind);
  }
  organizationTermStatistics(id: number, kind: VectorKind): Promise<TextTermStatistics | null> {
    return this.store.organizationTermStatistics(id, kind);
  }
  similarities(vector: Float32Array, kind: VectorKind, ids: number[], ranked?: ReadonlyMap<number, number>): Promise<Map<number, number>> {
    return this.store.similarities(vector, kind, ids, ranked);
  }
  customerBaseFigures(vector: Float32Array, ids: number[]): Promise<Map<number, CustomerBaseFigures>> {
    return this.store.customerBaseFigures(vector, ids);
  }
  lookUp(query: LookupQuery): Promise<LookupTiers> {
    return this.store.lookUp(query);
  }
  ping(): Promise<boolean> {
    return this.store.ping();
  }
  close(): Promise<void> {
    return this.store.close();
  }
}

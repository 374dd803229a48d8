/**
 * What customer-base search weighs of its candidates (the core's CustomerBaseFigures), in one
 * request: an `_msearch` of two kNN searches restricted to the ids (the very searches
 * similarities() makes, so the same cosines), the profile one also returning each hit's
 * `customer_stated` doc value (no `_source` parsed). Where Elasticsearch's scores are quantized
 * (see hasFloatScores), one mget of the float vectors and the flag, scored here as similarities() does.
 */
import type { Client, estypes } from "@elastic/elasticsearch";
import { assertQueryDimension, type CustomerBaseFigures, OrgsimError, type VectorKind } from "@orgsim/core";
import { type IndexName, oversampleOf, type ResolvedConfig, type VectorIndexType } from "./config";
import { guarded, UNAVAILABLE_STATUSES } from "./errors";
import { ID_ONLY, idOfHit } from "./id-hits";
import { type OrganizationDocument, VECTOR_FIELD } from "./organization-document";
import type { OrganizationIndex } from "./organization-index";
import { cosineOfScore, hasFloatScores, knnOfIds } from "./organization-search";
import { cosine, squaredNorm } from "./vector-math";

type Figures = Map<number, CustomerBaseFigures>;
type FigureSource = Pick<OrganizationDocument, "profile_vector" | "customer_vector" | "customer_stated">;

export class OrganizationFigures {
  constructor(
    private readonly client: Client,
    private readonly config: ResolvedConfig,
    private readonly name: IndexName,
    private readonly index: OrganizationIndex,
  ) {}

  async customerBaseFigures(vector: Float32Array, ids: number[]): Promise<Figures> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    return guarded(this.config.url, async () => {
      const info = await this.index.cached();
      if (!info) return new Map();
      assertQueryDimension(vector.length, info.dimension);
      // Indexes of an older schema lack `customer_stated` until upgraded.
      await this.index.upgradeSchema(info);
      return hasFloatScores(info.type, oversampleOf(this.config, info.type, "profile"))
        ? this.fromScores(vector, unique, info.type)
        : this.fromSource(vector, unique);
    });
  }

  private async fromScores(vector: Float32Array, ids: number[], type: VectorIndexType): Promise<Figures> {
    const search = (kind: VectorKind) => knnOfIds(vector, VECTOR_FIELD[kind], ids, type, oversampleOf(this.config, type, kind));
    const searches: estypes.MsearchRequestItem[] = [
      {},
      { ...search("profile"), docvalue_fields: [...ID_ONLY.docvalue_fields, "customer_stated"] },
      {},
      search("customer"),
    ];
    const [profile, customer] = (await this.client.msearch({ index: this.name.alias, searches })).responses.map(hitsOf);
    const customerCosines = new Map(customer?.map((hit) => [idOfHit(hit), cosineOfScore(hit._score)]));
    return new Map(
      (profile ?? []).map((hit) => {
        const id = idOfHit(hit);
        const stated = (hit.fields?.customer_stated as boolean[] | undefined)?.[0] === true;
        return [id, { customer: customerCosines.get(id) ?? null, profile: cosineOfScore(hit._score), customerStated: stated }];
      }),
    );
  }

  private async fromSource(vector: Float32Array, ids: number[]): Promise<Figures> {
    const response = await this.client.mget<FigureSource>({
      index: this.name.alias,
      ids: ids.map(String),
      _source_includes: [VECTOR_FIELD.profile, VECTOR_FIELD.customer, "customer_stated"],
    });
    const q = Float64Array.from(vector);
    const qNorm = squaredNorm(q);
    return new Map(
      response.docs.flatMap((d) => {
        const source = "found" in d && d.found ? d._source : undefined;
        if (!source?.profile_vector) return [];
        const customer = source.customer_vector ? cosine(q, qNorm, source.customer_vector) : null;
        return [[Number(d._id), { customer, profile: cosine(q, qNorm, source.profile_vector), customerStated: source.customer_stated === true }]];
      }),
    );
  }
}

/** The hits of one search of an `_msearch`; a failed one fails the call (unavailable when the cluster sheds load). */
function hitsOf(item: estypes.MsearchResponseItem): estypes.SearchHit[] {
  if (!("error" in item)) return item.hits.hits;
  const code = UNAVAILABLE_STATUSES.has(item.status ?? 0) ? "BACKEND_UNAVAILABLE" : "INTERNAL";
  throw new OrgsimError(code, `Elasticsearch search failed: ${item.error.reason ?? item.error.type}`);
}

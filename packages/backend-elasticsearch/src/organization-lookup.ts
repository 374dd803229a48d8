/**
 * GET /organizations on Elasticsearch: the tiers of the core's LookupTiers from the keyword fields
 * name_key, name_words and domain_key (organization-document.ts), all three in one `_msearch`.
 */
import type { Client, estypes } from "@elastic/elasticsearch";
import type { LookupQuery, LookupTiers } from "@orgsim/core";
import type { IndexName, ResolvedConfig } from "./config";
import { guarded } from "./errors";
import { ID_ONLY, idOfHit } from "./id-hits";
import type { OrganizationIndex } from "./organization-index";

type Query = estypes.QueryDslQueryContainer;

const BY_ID: estypes.Sort = [{ id: "asc" }];

export class OrganizationLookup {
  constructor(
    private readonly client: Client,
    private readonly config: ResolvedConfig,
    private readonly name: IndexName,
    private readonly index: OrganizationIndex,
  ) {}

  async lookUp({ words, domain, size }: LookupQuery): Promise<LookupTiers> {
    return guarded(this.config.url, async () => {
      const info = await this.index.cached();
      if (!info) return { namePrefix: [], allWords: [], wordPrefixes: [] };
      await this.index.upgradeSchema(info);
      const ofDomain: Query[] = domain ? [{ term: { domain_key: domain } }] : [];
      if (words.length === 0) {
        const [all = []] = await this.tiers([[ofDomain, BY_ID]], size);
        return { namePrefix: [], allWords: [], wordPrefixes: all };
      }
      const [namePrefix = [], allWords = [], wordPrefixes = []] = await this.tiers(
        [
          [
            [...ofDomain, { prefix: { name_key: words.join(" ") } }],
            [{ name_key: "asc" }, { id: "asc" }],
          ],
          [[...ofDomain, ...words.map((w) => ({ term: { name_words: w } }))], BY_ID],
          [[...ofDomain, ...words.map((w) => ({ prefix: { name_words: w } }))], BY_ID],
        ],
        size,
      );
      return { namePrefix, allWords, wordPrefixes };
    });
  }

  /** The ids matching every filter of each tier, in its order, `size` at most each: one round trip. */
  private async tiers(tiers: [filter: Query[], sort: estypes.Sort][], size: number): Promise<number[][]> {
    const searches = tiers.flatMap(([filter, sort]) => [
      {},
      { query: { bool: { filter } }, sort, size, ...ID_ONLY, track_total_hits: false },
    ]) as estypes.MsearchRequestItem[];
    const response = await this.client.msearch({ index: this.name.alias, searches });
    return response.responses.map((r) => {
      if ("error" in r) throw new Error(`lookup search failed: ${r.error.reason ?? r.error.type}`);
      return r.hits.hits.map(idOfHit);
    });
  }
}

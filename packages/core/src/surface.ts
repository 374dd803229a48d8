/** What every surface (REST, tRPC, MCP) serves: the services behind the contract, and its version. */
import type { CollectionExport } from "./services/collection-export";
import type { CollectionService } from "./services/collection-service";
import type { OrganizationService } from "./services/organization-service";
import type { SearchService } from "./services/search-service";

/** The contract's version, reported by the OpenAPI document and the MCP server. */
export const API_VERSION = "0.1.0";

export interface Services {
  search: SearchService;
  organizations: OrganizationService;
  collections: CollectionService;
  /** Exports of collections (REST streams them; tRPC and MCP page them). */
  exports: CollectionExport;
}

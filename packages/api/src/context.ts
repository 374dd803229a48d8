/** What every procedure sees: the services, the caller's tenant and per-request response hints. */
import type { CollectionService, OrganizationService, SearchService } from "@orgsim/core";

export interface Services {
  search: SearchService;
  organizations: OrganizationService;
  collections: CollectionService;
}

export interface Context {
  services: Services;
  /** The caller's tenant; collections are scoped to it. */
  tenant: string;
  requestId: string;
  /** Set by a procedure when the REST status is not 200 (201 created, 204 no content). */
  responseStatus?: number;
}

export const DEFAULT_TENANT = "default";

// Domain: reference data and rules
export * from "./domain/geo";
export * from "./domain/metrics";
export * from "./domain/taxonomy";
export * from "./domain/embedding-text";
export * from "./domain/lexical";
export * from "./domain/lookup-keys";
export * from "./domain/rank-fusion";
export { normalizeOrganization } from "./domain/normalize-organization";
export { organizationIssues } from "./domain/organization-checks";
export { assertItemTypes } from "./rules/one-type-rule";
export { assertCollectionCapacity, MAX_ITEMS_PER_COLLECTION } from "./rules/collection-capacity";
export { assertModelAdmitted, assertQueryDimension, assertRecordVectors, type GivenVectors, givenVector } from "./rules/vector-model";
export { dot } from "./domain/vector-math";
export { seedVector, UNLIKE_WEIGHT } from "./domain/seed-vector";
export { customerBaseSimilarity, EXTRACTED_CUSTOMER_WEIGHT, hasExplicitCustomerText } from "./domain/customer-base";
export * from "./errors";
export { API_VERSION, type Services } from "./surface";
// Schemas: the one source of truth for every input and output
export * from "./schemas/params";
export * from "./schemas/organization";
export * from "./schemas/lookup";
export * from "./schemas/search";
export * from "./schemas/collections";
export * from "./schemas/collection-export";
export * from "./schemas/access";
// Ports
export type * from "./ports/embedder";
export type * from "./ports/organization-store";
export type * from "./ports/collection-store";
export type * from "./ports/api-key-store";
// Services
export { FUSION_DEPTH } from "./services/hybrid-ranking";
export { type SavedOrganizations, type SearchCaller, SearchService, toStoreFilter } from "./services/search-service";
export { OrganizationService, MAX_BULK_ORGANIZATIONS } from "./services/organization-service";
export { CollectionService } from "./services/collection-service";
export { CollectionExport, EXPORT_CONTENT_TYPES, EXPORT_STORE_PAGE, type ExportFile, fileSlug } from "./services/collection-export";
export { csvCell, csvColumns, LIST_SEPARATOR } from "./services/export-csv";
export { ReadableOrganizationStore } from "./services/readable-store";
export { encodeCursor, decodeCursor, fingerprint, setCursorSecret } from "./services/cursor";
export { type KeysetPosition, keysetPage, pageBody } from "./services/keyset-page";
export { assertSameModel } from "./services/model-check";
export { type AccessMode, AccessService, assertScope, DEFAULT_TENANT, openPrincipal, type Principal, unauthorized } from "./services/access-service";

/**
 * What a browser app (apps/web) takes from the core: reference data and the export's CSV writer.
 * Nothing here reaches node:* modules, a store or the model, so a bundler can ship it to a browser;
 * the main entry (./index.ts) also exports the services, which need Node.
 */
export { COUNTRY_CODES, countryName, REGION_SLUGS } from "./domain/geo";
export { EMPLOYEE_RANGES, ENTITY_TYPES, type EmployeeRange, type EntityType, FUNDING_STAGES, type FundingStage } from "./domain/metrics";
export { EXPORT_FORMATS, type ExportFormat } from "./schemas/collection-export";
export { csvChunks } from "./services/export-csv";
export { EXPORT_CONTENT_TYPES, fileSlug } from "./services/collection-export";

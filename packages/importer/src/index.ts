export {
  importFile,
  ImportAbortedError,
  WRITES_IN_FLIGHT,
  type ImportIssue,
  type ImportOptions,
  type ImportProgress,
  type ImportReport,
  type Upsert,
  type UpsertOptions,
} from "./import-file";
export { runImportCli, formatReport, type ImportCliOptions, type ImportCliResult } from "./cli";
export { createProgress, type ProgressOptions, type ProgressReporter } from "./progress";
export { parseMapping, loadMapping, MappingError, FORMATS, type Mapping, type MappingInput, type FieldRule, type IdRule, type Format } from "./mapping";
export { mapRecord, hashId, MAX_HASHED_ID, type MapResult } from "./map-record";
export { readRecords, SourceError, type SourceItem } from "./sources";
export { READER_THREAD_FROM_BYTES } from "./mapped-records";
export { WritesInFlight } from "./writes-in-flight";
export { TARGETS, TARGET_KEYS, type TargetKey, VECTOR_TARGETS, VECTOR_KEYS, type VectorKey } from "./targets";
export { TRANSFORMS, TRANSFORM_NAMES, type TransformName } from "./transforms";
export { parseLocationText, toCountryCode, toSubdivisionCode, type ParsedPlace } from "./location";

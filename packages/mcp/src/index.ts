export { createOrgsimMcpServer, type OrgsimMcpServerOptions, SERVER_INSTRUCTIONS, TOOL_NAMES, type ToolName } from "./server";
export { ERROR_META_KEY } from "./errors";
export { CompactItem, CompactOrganization, CompactOrganizationResult, ONE_LINE_MAX } from "./format";
export { AGENT_MAX_PAGE_SIZE, AGENT_PAGE_SIZE, Detail } from "./params";
export { SCOPE_META_KEY } from "./tool";

export * from "./collection-store";
export * from "./organization-store";
export * from "./api-key-store";

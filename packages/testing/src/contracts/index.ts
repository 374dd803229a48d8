export * from "./collection-store";
export * from "./organization-store";

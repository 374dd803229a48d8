export * from "./expected";
export * from "./synthetic";

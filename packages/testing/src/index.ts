export * from "./synthetic";

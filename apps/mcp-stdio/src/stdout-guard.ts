/**
 * stdout carries the MCP protocol and nothing else: anything a dependency logs with
 * console.log/info/debug goes to stderr instead. Imported first by main.ts, so it runs
 * before any other module is evaluated.
 */
const toStderr = (...args: unknown[]) => console.error(...args);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;

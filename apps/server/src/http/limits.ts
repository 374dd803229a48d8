/**
 * Transport limits of the contract, and the checks REST and tRPC run on a request before any
 * procedure sees it: the URL must be valid percent-encoded UTF-8, and a JSON body must be at most
 * 5 MiB of valid UTF-8 holding one well-formed JSON value with no duplicate keys, no lone
 * surrogates, no prototype keys (`__proto__`, `constructor.prototype`) and at most 64 levels of
 * nesting. A refused request gets the contract's error (400 VALIDATION_FAILED naming what is
 * wrong, or 413 PAYLOAD_TOO_LARGE) in the surface's own envelope.
 *
 * A checked body is left in `req.body` as text: both tRPC adapters (tRPC's and trpc-to-openapi's)
 * read `req.body` instead of the stream when it is set.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { trpcCodeOf, trpcErrorShape } from "@orgsim/api";
import { contractErrorOf, OrgsimError, type ValidationIssue } from "@orgsim/core";
import { requestIdOf, sendError } from "./context";
import { send } from "./docs";

export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** Request line and headers: room for a 2,000-character query in any script, percent-encoded. */
export const MAX_HEADER_BYTES = 64 * 1024;
/** Most operations one tRPC batch request may carry. */
export const MAX_TRPC_BATCH = 20;
/** Most messages one MCP (JSON-RPC) batch may carry; the SDK's own bound is 100. */
export const MAX_MCP_BATCH = 20;
/** Deepest nesting of arrays and objects a JSON body may have (the contract's inputs need 4). */
export const MAX_JSON_DEPTH = 64;

export type Surface = "rest" | "trpc";

const METHODS_WITH_BODY = new Set(["POST", "PUT", "PATCH"]);

/**
 * Checks the request; resolves true when it may go on to the surface's handler, false when it was
 * refused here (the error response is then sent).
 */
export async function admitRequest(req: IncomingMessage, res: ServerResponse, surface: Surface): Promise<boolean> {
  try {
    await checkRequest(req, surface);
    return true;
  } catch (error) {
    if (!(error instanceof OrgsimError)) throw error;
    sendRefusal(req, res, error, surface);
    return false;
  }
}

/** Throws the contract's error for a URL or body the service does not accept; sets `req.body` to a checked body. */
export async function checkRequest(req: IncomingMessage, surface: Surface): Promise<void> {
  const urlIssue = checkUrl(req.url ?? "/", surface) ?? (surface === "trpc" ? checkTrpcQueryInput(req.url ?? "/") : null);
  if (urlIssue) throw OrgsimError.validation([urlIssue]);
  if (!METHODS_WITH_BODY.has(req.method ?? "GET")) return;

  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    discard(req, 0);
    throw tooLarge();
  }
  const contentType = req.headers["content-type"];
  const typeIssue = checkContentType(contentType, surface);
  const bytes = await readBody(req);
  if (bytes.length === 0) {
    if (surface === "rest") {
      // No body is no input: the procedure then names each missing field.
      req.headers["content-type"] = "application/json";
      setBody(req, "{}");
    } else {
      setBody(req, "");
    }
    return;
  }
  if (typeIssue) throw OrgsimError.validation([typeIssue]);
  // Media types are case-insensitive; trpc-to-openapi compares with "application/json" as it is.
  if (surface === "rest") req.headers["content-type"] = "application/json";
  const text = decodeUtf8(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw OrgsimError.validation([{ path: ["body"], message: `the request body is not valid JSON (${(error as Error).message})` }]);
  }
  const issue = inspectJson(text);
  if (issue) throw OrgsimError.validation([issue]);
  if (surface === "rest" && (value === null || typeof value !== "object" || Array.isArray(value))) {
    throw OrgsimError.validation([{ path: ["body"], message: "the request body must be a JSON object" }]);
  }
  setBody(req, text);
}

const tooLarge = () =>
  new OrgsimError("PAYLOAD_TOO_LARGE", `The request body exceeds the limit of ${MAX_BODY_BYTES} bytes (5 MiB)`, { limit_bytes: MAX_BODY_BYTES });

function setBody(req: IncomingMessage, text: string) {
  (req as IncomingMessage & { body?: string }).body = text;
}

/**
 * The first part of the URL that is not valid percent-encoded UTF-8 (`%FF`, `%C3%28`, overlong
 * `%C0%AF`, a lone `%`), named. On REST also a parameter named like a member of Object.prototype
 * (`__proto__`, `constructor`, `toString`, …): trpc-to-openapi collects parameters in a plain
 * object and fails on those with a TypeError, a 500; no operation has such a parameter.
 */
function checkUrl(url: string, surface: Surface): ValidationIssue | null {
  const q = url.indexOf("?");
  if (decode(q < 0 ? url : url.slice(0, q)) === null) {
    return { path: ["path"], message: "the URL path is not valid percent-encoded UTF-8" };
  }
  if (q < 0) return null;
  for (const part of url.slice(q + 1).split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    if (name === null) return { path: ["query"], message: "a query parameter name is not valid percent-encoded UTF-8" };
    if (surface === "rest" && name in Object.prototype) return { path: [name], message: `unknown parameter "${name}"` };
    if (eq >= 0 && decode(part.slice(eq + 1)) === null) return { path: [name], message: `${name} is not valid percent-encoded UTF-8` };
  }
  return null;
}

/**
 * tRPC GET carries its JSON in `?input=`: the same JSON checks as a body (duplicate keys, lone
 * surrogates, prototype keys, depth), so GET and POST accept the same inputs. JSON.parse judges
 * well-formedness first (inspectJson needs well-formed text); tRPC names a malformed input itself.
 */
function checkTrpcQueryInput(url: string): ValidationIssue | null {
  const input = new URL(url, "http://localhost").searchParams.get("input");
  if (input === null) return null;
  try {
    JSON.parse(input);
  } catch {
    return null;
  }
  const issue = inspectJson(input);
  return issue && { ...issue, message: issue.message.replace("the request body", "the input") };
}

function decode(component: string): string | null {
  try {
    return decodeURIComponent(component.replaceAll("+", " "));
  } catch {
    return null;
  }
}

/** REST bodies are JSON; tRPC also takes no content-type (its own default is JSON). */
function checkContentType(header: string | undefined, surface: Surface): ValidationIssue | null {
  if (header === undefined || header.trim() === "") {
    return surface === "trpc" ? null : { path: ["content-type"], message: "a request body needs content-type: application/json" };
  }
  const [type, ...params] = header.split(";");
  if (type?.trim().toLowerCase() !== "application/json") {
    return { path: ["content-type"], message: `content-type must be application/json, not "${header.slice(0, 100)}"` };
  }
  for (const param of params) {
    const [key, value] = param.split("=").map((s) => s.trim().toLowerCase());
    if (key === "charset" && value?.replace(/^"|"$/g, "") !== "utf-8") {
      return { path: ["content-type"], message: "a JSON body must be UTF-8 (charset=utf-8)" };
    }
  }
  return null;
}

/**
 * Reads the body, refusing more than MAX_BODY_BYTES. A body over the limit is read on and dropped
 * (up to a bound), so the client finishes sending and reads the 413 instead of a reset connection.
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
        return;
      }
      req.off("data", onData);
      chunks.length = 0;
      discard(req, size);
      reject(tooLarge());
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks)));
    // The client went away mid-body: whatever is answered goes nowhere, but it is not a server failure.
    req.on("error", () => reject(OrgsimError.validation([{ path: ["body"], message: "the request body could not be read to its end" }])));
  });
}

/** Reads the rest of a refused body and drops it; a client that sends far more than the limit is cut off. */
function discard(req: IncomingMessage, alreadyRead: number) {
  let size = alreadyRead;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > 4 * MAX_BODY_BYTES) req.destroy();
  });
  req.resume();
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeUtf8(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw OrgsimError.validation([{ path: ["body"], message: "the request body is not valid UTF-8" }]);
  }
}

interface Frame {
  /** Keys seen so far (objects), or null (arrays). */
  keys: Set<string> | null;
  /** Where the scan is inside this container: the current key, or the current index. */
  at: string | number;
  /** An object under a `constructor` key: a `prototype` key in it is refused. */
  underConstructor: boolean;
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * What JSON.parse lets through but the service refuses, in a text JSON.parse accepted: duplicate
 * keys (parsers disagree on which one wins), lone surrogates escaped as `\ud800` (not Unicode
 * text; stores would replace them), prototype keys and nesting deeper than MAX_JSON_DEPTH.
 * Iterative, so no nesting can overflow the stack.
 */
export function inspectJson(text: string): ValidationIssue | null {
  const stack: Frame[] = [];
  const pathHere = () => stack.map((f) => f.at);
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const parent = stack.at(-1);
      stack.push({ keys: c === 0x7b ? new Set() : null, at: 0, underConstructor: c === 0x7b && parent?.at === "constructor" && parent.keys !== null });
      if (stack.length > MAX_JSON_DEPTH) {
        return { path: pathHere().slice(0, 4), message: `the request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels` };
      }
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      const top = stack.at(-1);
      if (top?.keys) expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
    } else if (c === 0x22 /* " */) {
      let end = i + 1;
      let escaped = false;
      for (;;) {
        const d = text.charCodeAt(end);
        if (d === 0x5c /* \ */) {
          escaped = true;
          end += 2;
        } else if (d === 0x22) break;
        else end++;
      }
      const value = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : text.slice(i + 1, end);
      const top = stack.at(-1);
      const keys = expectKey ? top?.keys : null;
      if (top && keys) top.at = value;
      if (escaped && LONE_SURROGATE.test(value)) {
        return { path: pathHere(), message: "the request body holds a lone surrogate (\\ud800–\\udfff), which is not Unicode text" };
      }
      if (top && keys) {
        if (keys.has(value)) return { path: pathHere(), message: `duplicate key "${value.slice(0, 64)}"` };
        if (value === "__proto__" || (value === "prototype" && top.underConstructor)) {
          return { path: pathHere(), message: `the key "${value}" is not accepted` };
        }
        keys.add(value);
        expectKey = false;
      }
      i = end;
    }
  }
  return null;
}

/**
 * Sends the contract's error for a refused request, in the surface's envelope. A body over the limit
 * is still being read and dropped (see discard): the connection stays open, else the client would
 * fail with EPIPE before it reads this answer.
 */
export function sendRefusal(req: IncomingMessage, res: ServerResponse, error: OrgsimError, surface: Surface) {
  const contract = contractErrorOf(error, requestIdOf(req, res));
  if (surface === "rest") return sendError(res, contract);
  const url = new URL(req.url ?? "/", "http://localhost");
  const paths = (decode(url.pathname.replace(/^\/trpc\/?/, "")) ?? "").split(",");
  const code = trpcCodeOf(contract.status);
  const envelope = (path: string) => ({ error: trpcErrorShape(contract, code, path) });
  send(res, contract.status, "application/json", JSON.stringify(url.searchParams.get("batch") === "1" ? paths.map(envelope) : envelope(paths[0] ?? "")));
}

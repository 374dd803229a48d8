/**
 * Who may call: authenticates `Authorization: Bearer <api key>` and applies the key's rate
 * limit, for every API surface (REST, tRPC, MCP). Health, readiness and the API document
 * stay public.
 *
 * A loopback server whose store never held a key runs open: every caller is the local user
 * (the default tenant, all scopes, no rate limit). Once keys were used, revoking the last one
 * does not open it: it refuses callers without a key until restarted with ORGSIM_OPEN=true
 * (AccessService.mode). A server that listens beyond loopback never runs open; serve()
 * refuses to start that way. Every change of mode while the server runs is logged.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Access } from "@orgsim/api";
import { type AccessMode, type AccessService, OrgsimError, openPrincipal, type Principal, unauthorized } from "@orgsim/core";
import cluster from "node:cluster";
import { type RateLimiterAbstract, RateLimiterCluster, RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { noteTenant } from "../observability/request-log";

export interface AccessPolicyOptions {
  /** Whether the server listens on loopback only (then it may run open). */
  loopbackOnly: boolean;
  /** Requests a minute per key unless the key sets its own. */
  defaultRateLimitPerMinute: number;
  /** ORGSIM_OPEN=true: serve callers without a key whenever no key is active. */
  openOnPurpose: boolean;
  /** The mode the server started in (serve() printed it); changes from it are logged. */
  modeAtStart: AccessMode;
  log: (line: string) => void;
}

/** `calls`: how many operations the request carries (a tRPC batch counts each against the rate limit). */
export type AccessPolicy = (req: IncomingMessage, res: ServerResponse, calls?: number) => Promise<Access>;

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/i;
export const isLoopbackHost = (host: string) => LOOPBACK_HOSTS.test(host.replace(/^\[|\]$/g, ""));

const MODE_CHANGES: Record<AccessMode, string> = {
  keys: "API keys are required (a key is active)",
  revoked: "every API key of this server is revoked, and keys stay required: create a key, or restart the server with ORGSIM_OPEN=true to run open on loopback",
  open: "OPEN: no API key is active and ORGSIM_OPEN=true, so every local caller has full access",
};

export function createAccessPolicy(access: AccessService, options: AccessPolicyOptions): AccessPolicy {
  const currentMode = modeWatcher(access, options);
  const consume = rateLimiter(options.defaultRateLimitPerMinute);
  return async (req, res, calls = 1) => {
    try {
      const principal = await principalOf(req, access, currentMode, options.loopbackOnly);
      noteTenant(res, principal.tenant);
      await consume(principal, res, calls);
      return { principal };
    } catch (error) {
      if (!(error instanceof OrgsimError)) throw error;
      if (error.code === "UNAUTHORIZED") res.setHeader("www-authenticate", 'Bearer realm="orgsim"');
      return { refused: error };
    }
  };
}

/** The current mode (cached by the AccessService), logging when it changed. */
function modeWatcher(access: AccessService, options: AccessPolicyOptions): () => Promise<AccessMode> {
  let mode = options.modeAtStart;
  return async () => {
    const now = await access.mode(options.openOnPurpose);
    if (now !== mode) options.log(`Access changed: ${MODE_CHANGES[now]}`);
    mode = now;
    return now;
  };
}

/** The caller: the API key's principal, or the local user while a loopback server runs open. */
async function principalOf(req: IncomingMessage, access: AccessService, currentMode: () => Promise<AccessMode>, loopbackOnly: boolean): Promise<Principal> {
  // Node keeps the first of several Authorization headers; a proxy may keep another: which key is meant is unclear.
  if ((req.headersDistinct.authorization?.length ?? 0) > 1) {
    throw OrgsimError.validation([{ path: ["authorization"], message: "send one Authorization header, not several" }]);
  }
  const header = req.headers.authorization;
  // Every request looks, so a change (the last key revoked, a first key created) is logged when it is seen.
  const now = await currentMode();
  if (header !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized("The Authorization header must be `Bearer <api key>`");
    return access.authenticate(match[1] as string);
  }
  if (now === "keys") throw unauthorized("Missing API key: send `Authorization: Bearer <api key>`");
  if (now === "revoked") throw unauthorized(`Missing API key: send \`Authorization: Bearer <api key>\`. ${MODE_CHANGES.revoked}`);
  if (!loopbackOnly) throw unauthorized("No API key is active and this server listens beyond loopback: it serves only callers with a key");
  return openPrincipal();
}

/**
 * Counts a request against its key's budget of requests a minute (one limiter per distinct limit, shared by a cluster's workers)
 * and tells the caller where it stands (IETF RateLimit headers); throws RATE_LIMITED when spent.
 */
function rateLimiter(defaultPerMinute: number) {
  const limiters = new Map<number, RateLimiterAbstract>();
  const limiterFor = (perMinute: number) => {
    let limiter = limiters.get(perMinute);
    if (!limiter) {
      const options = { points: perMinute, duration: 60, keyPrefix: `rpm${perMinute}` };
      // In a cluster the primary counts for every worker (see ../cluster.ts).
      limiter = cluster.isWorker ? new RateLimiterCluster(options) : new RateLimiterMemory(options);
      limiters.set(perMinute, limiter);
    }
    return limiter;
  };

  return async (principal: Principal, res: ServerResponse, calls: number): Promise<void> => {
    if (principal.keyId === null) return;
    const limit = principal.rateLimitPerMinute ?? defaultPerMinute;
    let state: RateLimiterRes;
    let refused = false;
    try {
      state = await limiterFor(limit).consume(principal.keyId, calls);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      state = rejection;
      refused = true;
    }
    const resetSeconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
    res.setHeader("ratelimit-limit", String(limit));
    res.setHeader("ratelimit-remaining", String(Math.max(0, state.remainingPoints)));
    res.setHeader("ratelimit-reset", String(resetSeconds));
    res.setHeader("ratelimit-policy", `${limit};w=60`);
    if (refused) {
      res.setHeader("retry-after", String(resetSeconds));
      throw new OrgsimError("RATE_LIMITED", `Rate limit of ${limit} requests a minute reached for API key ${principal.keyId}; retry in ${resetSeconds} s`, {
        limit_per_minute: limit,
        retry_after_seconds: resetSeconds,
      });
    }
  };
}

/**
 * DNS-rebinding protection for every API surface (REST, tRPC, MCP). A web page can rebind its own
 * name to 127.0.0.1 and then call a local server from the user's browser as if same-origin; its
 * requests still carry its name in `Host` (and `Origin`). So on a loopback connection the Host
 * must be a loopback name or one the operator allowed (ORGSIM_ALLOWED_HOSTS), and a browser's
 * Origin must be one of those names for any request that changes data. With ORGSIM_ALLOWED_HOSTS
 * set, every connection is checked so, not only loopback ones.
 *
 * Names are compared without port: the attacker controls names, not which port a name reaches.
 */
import type { IncomingMessage } from "node:http";
import { OrgsimError } from "@orgsim/core";
import { isLoopbackHost } from "./access";

/** Methods that only read: a foreign Origin on them reads nothing it could not already (no CORS headers are sent). */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export type HostCheck = (req: IncomingMessage) => OrgsimError | null;

export function createHostCheck(allowedHosts: readonly string[]): HostCheck {
  // Written as the request's names are read (lower case, IPv6 compressed), so the two compare.
  const allowed = new Set(allowedHosts.map((host) => hostnameOf(host.includes(":") && !host.startsWith("[") ? `[${host}]` : host) ?? host.toLowerCase()));
  const isAllowed = (hostname: string | null) => hostname !== null && (isLoopbackHost(hostname) || allowed.has(hostname));

  return (req) => {
    const local = req.socket.localAddress ?? "";
    if (allowed.size === 0 && !isLoopbackHost(local)) return null;
    const host = req.headers.host;
    if (!isAllowed(hostnameOf(host))) {
      return forbidden(`Host ${host ?? "(none)"} is not a name of this server: use a loopback name, or list the name in ORGSIM_ALLOWED_HOSTS`, {
        host: host ?? null,
      });
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !READ_METHODS.has(req.method ?? "GET") && !isAllowed(hostnameOf(origin))) {
      return forbidden(`Origin ${origin} may not change data here: only pages on loopback names or ORGSIM_ALLOWED_HOSTS may`, { origin });
    }
    return null;
  };
}

const forbidden = (message: string, details: Record<string, unknown>) => new OrgsimError("FORBIDDEN", message, details);

/** A Host header (name or address, optional port), or an Origin (scheme, then the same): nothing else, no `user@`. */
const HOST = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The lowercase hostname of a Host header or an Origin, IPv6 without brackets; null when it is none. */
function hostnameOf(value: string | undefined): string | null {
  if (!value || !HOST.test(value)) return null;
  try {
    const { hostname } = new URL(value.includes("://") ? value : `http://${value}`);
    return hostname.replace(/^\[|\]$/g, "").toLowerCase() || null;
  } catch {
    return null;
  }
}

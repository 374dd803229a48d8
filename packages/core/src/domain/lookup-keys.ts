/**
 * The keys organizations are looked up by (GET /organizations?name=…&domain=…), computed the same
 * way for what is stored and for what is asked, so both backends match exactly the same records.
 */

/** A name's words: accents removed, lower case, split at anything but letters and digits. */
export function nameWords(name: string): string[] {
  // An ASCII name has no accents to remove and NFKD changes no ASCII character, so it takes the
  // same words from a plain split: most names are ASCII, and the Unicode path cost an import
  // about 1 µs an organization.
  if (isAscii(name))
    return name
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  // Lower case first: lowering can itself make a combining mark ("İ" → "i̇").
  return name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** A name as its words joined by single spaces: "Stripe, Inc." → "stripe inc"; type-ahead matches its prefixes. */
export const nameKey = (name: string): string => nameWords(name).join(" ");

/**
 * The host a domain or URL names, lower case, without `www.`, port, path or credentials:
 * "https://www.Stripe.com/pricing" → "stripe.com". Null when it names no host.
 */
export function domainKey(domainOrUrl: string): string | null {
  const value = domainOrUrl.trim();
  if (!value) return null;
  let host: string;
  try {
    // The WHATWG URL parser lowercases, drops the port and turns international names into punycode.
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`).hostname;
  } catch {
    return null;
  }
  host = host.replace(/\.$/, "").replace(/^www\d*\./, "");
  return host.includes(".") ? host : null;
}

/**
 * The Chromium the browser tests and the screenshot script drive (playwright-core, whose own
 * browser download does not work on our machines): CHROMIUM_PATH when set, else Debian's
 * `chromium` package. Missing, it is an error that names the install command, never a skip.
 */
import { existsSync } from "node:fs";

export const CHROMIUM_INSTALL = "apt-get update && apt-get install -y chromium";
const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/snap/bin/chromium"];

export function chromiumPath(): string {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    if (!existsSync(given))
      throw new Error(`CHROMIUM_PATH names ${given}, which does not exist. Install Chromium with: ${CHROMIUM_INSTALL} (as root), or fix CHROMIUM_PATH.`);
    return given;
  }
  const found = CANDIDATES.find((path) => existsSync(path));
  if (!found) {
    throw new Error(
      `No Chromium found for the browser tests (looked for ${CANDIDATES.join(", ")}). Install it with: ${CHROMIUM_INSTALL} (as root; .ci/run does this), or set CHROMIUM_PATH to a Chromium binary.`,
    );
  }
  return found;
}

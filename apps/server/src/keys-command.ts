/** `orgsim keys create|list|revoke`: API keys in the configured backend (the server reads them there). */
import { Command, InvalidArgumentError, Option } from "commander";
import { type ApiKeyInfo, SCOPES, type Scope } from "@orgsim/core";
import { loadConfig, openKeyStore } from "@orgsim/runtime";

const scopeList = (value: string): Scope[] => {
  const scopes = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0 || scopes.length === 0) throw new InvalidArgumentError(`scopes are a comma-separated list of ${SCOPES.join(", ")}; got "${value}"`);
  return scopes as Scope[];
};

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a positive integer");
  return n;
};

async function withKeys<T>(run: (access: Awaited<ReturnType<typeof openKeyStore>>["access"]) => Promise<T>): Promise<T> {
  const store = await openKeyStore(loadConfig());
  try {
    return await run(store.access);
  } finally {
    await store.close();
  }
}

const describeKey = (key: ApiKeyInfo) =>
  [
    key.id.padEnd(20),
    key.tenant.padEnd(16),
    key.scopes.join(",").padEnd(70),
    key.revoked_at ? `revoked ${key.revoked_at}` : `active since ${key.created_at}`,
    key.rate_limit_per_minute ? ` ${key.rate_limit_per_minute}/min` : "",
    key.name ? ` "${key.name}"` : "",
  ].join(" ");

export function keysCommand(): Command {
  const keys = new Command("keys").description("create, list and revoke API keys (stored hashed in the configured backend)");

  keys
    .command("create")
    .description("create a key and print it once; keep it secret, it cannot be shown again")
    .requiredOption("-t, --tenant <tenant>", "the tenant the key acts for (its collections are the tenant's)")
    .addOption(new Option("-s, --scopes <scopes>", `comma-separated: ${SCOPES.join(", ")}`).argParser(scopeList).makeOptionMandatory())
    .option("-n, --name <name>", "a label, to recognise the key in `keys list`")
    .option("-r, --rate-limit <perMinute>", "requests a minute for this key (default: ORGSIM_RATE_LIMIT_PER_MINUTE)", positiveInt)
    .option("--json", "print the key as JSON")
    .action(async (options: { tenant: string; scopes: Scope[]; name?: string; rateLimit?: number; json?: boolean }) => {
      const { key, token } = await withKeys((access) =>
        access.create({ tenant: options.tenant, scopes: options.scopes, name: options.name, rate_limit_per_minute: options.rateLimit }),
      );
      if (options.json) return console.log(JSON.stringify({ ...key, token }));
      console.log(token);
      console.error(`Created ${key.id} for tenant ${key.tenant} with ${key.scopes.join(", ")}. This is the only time the key is shown.`);
    });

  keys
    .command("list")
    .description("list keys (never their secrets)")
    .option("--json", "print JSON")
    .action(async (options: { json?: boolean }) => {
      const list = await withKeys((access) => access.list());
      if (options.json) return console.log(JSON.stringify(list));
      if (list.length === 0) return console.log("No API keys: a loopback server runs open.");
      for (const key of list) console.log(describeKey(key));
    });

  keys
    .command("revoke")
    .description("revoke a key for good (servers stop accepting it within ORGSIM_KEY_CACHE_MS, 5 s by default)")
    .argument("<id>", "the key id (key_…), from `keys list`")
    .action(async (id: string) => {
      const [key, anyActive] = await withKeys(async (access) => [await access.revoke(id), await access.hasActiveKeys()] as const);
      console.log(`Revoked ${key.id} (tenant ${key.tenant}) at ${key.revoked_at}`);
      if (!anyActive)
        console.log("No key is active now: servers keep requiring keys (create one, or restart a loopback server with ORGSIM_OPEN=true to run it open).");
    });

  return keys;
}

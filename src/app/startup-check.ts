/**
 * What `gateway serve` says on stderr at start about what will not work (docs/cli.md),
 * one line each: a configured provider without a key, and no provider usable at all (instead
 * of starting silently with a catalog nobody can reach), PostgreSQL without Redis (limits
 * per process), and `fallbacks` naming an unknown model. BYOK secrets that cannot decrypt are
 * said by access/byok.ts `unreadableLine`.
 */
import { resolveAlias } from "../catalog/aliases.js";
import { redisOf } from "../config/config.js";
import type { Gateway } from "../gateway.js";
import type { ProviderInstance } from "../plugin/load.js";

/** A local OpenAI-compatible server usually needs no key (catalog/catalog.ts isKeyless). */
const keyless = (i: ProviderInstance) => i.plugin.describe?.keyless === true;

const keyHint = (i: ProviderInstance) => `providers.${i.settings.id}.apiKey${i.plugin.defaults.apiKeyEnv ? ` or ${i.plugin.defaults.apiKeyEnv}` : ""}`;

export function startupWarnings(gw: Gateway, env: NodeJS.ProcessEnv = process.env): string[] {
  const lines: string[] = [];
  // Several processes on one PostgreSQL, no Redis: each counts its own windows (docs/fleet.md).
  if (gw.store.kind === "postgres" && !redisOf(gw.config, env)) {
    lines.push("[gateway] no Redis configured (redis, or GATEWAY_REDIS): rate limits are per process, each process admits a full window of its own");
  }
  const configured = Object.keys(gw.config.providers);
  for (const id of configured) {
    const i = gw.instances.get(id);
    if (!i || i.settings.apiKey !== undefined || keyless(i)) continue;
    lines.push(`warning: provider ${id} has no key (set ${keyHint(i)}): its models answer 404 except for accounts with their own key (gateway byok set)`);
  }
  const usable = [...gw.instances.values()].some((i) => i.settings.apiKey !== undefined || (keyless(i) && configured.includes(i.settings.id)));
  if (!usable) {
    lines.push(
      "warning: no provider is usable: none has a key, so every chat request gets 404 model_not_found " +
        "(run gateway init, or export OPENAI_API_KEY, ANTHROPIC_API_KEY, ... and restart); accounts' own keys (gateway byok set) still work",
    );
  }
  return [...lines, ...fallbackWarnings(gw), ...modelWarnings(gw)];
}

/**
 * A config `models:` entry without endpoints names a catalog model to change; an alias names the
 * model it sends to. Either naming no catalog model answers 404 (docs/cli.md, "The config file").
 */
function modelWarnings(gw: Gateway): string[] {
  const bare = gw.config.models
    .filter((m) => !m.endpoints && !gw.catalog.model(m.id)?.endpoints.length)
    .map(
      (m) => `warning: models: '${m.id}' has no endpoints and no catalog model has that id (gateway models sync lists what providers serve): requests get 404`,
    );
  const aliases = Object.entries(gw.config.aliases)
    .filter(([, target]) => !gw.catalog.model(target)?.endpoints.length)
    .map(([name, target]) => `warning: aliases.${name}: '${target}' is not a model of the catalog (gateway models list --all): requests get 404`);
  return [...bare, ...aliases];
}

/** A `fallbacks` entry naming a model the catalog does not know: requests would skip it (docs/routing.md). */
function fallbackWarnings(gw: Gateway): string[] {
  const known = (model: string) => {
    try {
      return gw.catalog.find(resolveAlias(gw.config.aliases, model), () => "any key") !== undefined; // known, whoever holds a key
    } catch {
      return true; // an ambiguous bare name is a model; the request says which to pick
    }
  };
  return Object.entries(gw.config.fallbacks).flatMap(([model, list]) =>
    [model, ...list]
      .filter((m) => !known(m))
      .map((m) => `warning: fallbacks.${model}: '${m}' is not a model of the catalog (gateway models list): requests skip it`),
  );
}

/** Models a request can reach on the gateway's own keys (no BYOK): the number worth announcing. */
export const usableModels = (gw: Gateway): number => gw.catalog.list(() => undefined).length;

/**
 * What the config says that only the loaded plugins can check: each provider entry's keys
 * against the options its plugin declares (`describe.options`), and each model endpoint's
 * provider against the instances. Both fail `serve`, `doctor` and `models sync` at load, one
 * line per problem with file:line and a did-you-mean, instead of an ignored option or a model
 * that answers 404 (docs/cli.md "Config checks").
 */
import type { Config } from "../config/config.js";
import { nearMiss, unknownKey, type Problem } from "../config/diagnostics.js";
import { configError } from "../config/source.js";
import type { ProviderPlugin } from "./contract.js";

/** The keys every provider entry takes, whatever its plugin (config/config.ts `Provider`). */
const COMMON = ["plugin", "baseUrl", "apiKey"];

/** Throws the config's UsageError when an entry or an endpoint is wrong. */
export async function checkAgainstPlugins(config: Config, plugins: Map<string, { plugin: ProviderPlugin; builtin: boolean }>, instanceIds: string[]) {
  const problems = [...optionProblems(config, plugins), ...endpointProblems(config, instanceIds)];
  if (problems.length) throw await configError(config, problems);
}

/** A key the plugin does not read is a typo (`maxToken`) that would otherwise change nothing in silence. */
function optionProblems(config: Config, plugins: Map<string, { plugin: ProviderPlugin; builtin: boolean }>): Problem[] {
  return Object.entries(config.providers).flatMap(([id, entry]) => {
    const loaded = plugins.get(id);
    const declared = loaded?.plugin.describe?.options ?? (loaded?.builtin ? [] : undefined);
    if (!declared) return []; // a third-party plugin that does not say what it reads
    const known = [...COMMON, ...declared];
    return Object.keys(entry)
      .filter((key) => !known.includes(key))
      .map((key) => ({ path: ["providers", id, key], message: unknownKey(key, known) }));
  });
}

function endpointProblems(config: Config, instanceIds: string[]): Problem[] {
  return config.models.flatMap((model, i) =>
    (model.endpoints ?? []).flatMap(({ provider }, j) => {
      if (instanceIds.includes(provider)) return [];
      const near = nearMiss(provider, instanceIds);
      const hint = near ? ` (did you mean ${near}?)` : `; the instances are ${[...instanceIds].sort().join(", ")}`;
      return [{ path: ["models", i, "endpoints", j, "provider"], message: `no provider instance '${provider}'${hint}` }];
    }),
  );
}

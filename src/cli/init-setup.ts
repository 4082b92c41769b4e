/**
 * What `gateway init` writes for each provider, and the live check of its key (docs/cli.md).
 * A provider entry holds either a `${VAR}` reference or the key itself (then the file
 * is written 0600); the check runs on exactly what `serve` would load from that entry.
 */
import { parseConfig } from "../config/config.js";
import { loadBuiltins, loadProviders } from "../plugin/load.js";
import type { ProviderPlugin } from "../plugin/contract.js";
import { checkKey, type KeyCheck } from "../upstream/provider-check.js";

/** The built-in providers `init` offers: those with a conventional key (their `describe`, else `defaults.apiKeyEnv`). */
export const keyedPlugins = async (): Promise<ProviderPlugin[]> =>
  (await loadBuiltins()).filter((p) => p.describe?.keyTemplate !== undefined || p.defaults.apiKeyEnv !== undefined);

/** `local`: an OpenAI-compatible server on this machine (Ollama's default address; LM Studio :1234, vLLM :8000). */
export const LOCAL = "local";
export const LOCAL_URL = "http://localhost:11434/v1";

export interface ProviderEntry {
  plugin?: string;
  baseUrl?: string;
  apiKey?: string;
}

/**
 * The `${VAR}` reference a config entry holds: `variable` when the operator names one, else
 * the plugin's template (Bedrock: the access key id and the secret joined), else its key variable.
 */
export const envReference = (plugin: ProviderPlugin, variable?: string): string =>
  variable ? `\${${variable}}` : (plugin.describe?.keyTemplate ?? `\${${plugin.defaults.apiKeyEnv}}`);

/** The variables behind the conventional reference, in order. */
export const keyVariables = (plugin: ProviderPlugin): string[] => [...envReference(plugin).matchAll(/\$\{([^}]+)\}/g)].map((m) => m[1]!);

/** Is every variable behind the conventional reference set in this environment? */
export const envHasKey = (plugin: ProviderPlugin, env: NodeJS.ProcessEnv): boolean => keyVariables(plugin).every((v) => Boolean(env[v]));

/** A literal key (not only `${VAR}` references): the config file is then written 0600. */
export const holdsLiteralKey = (entry: ProviderEntry): boolean =>
  entry.apiKey !== undefined && entry.apiKey.replace(/\$\{[^}]+\}/g, "").replace(/:/g, "") !== "";

export function entryFor(provider: string, opts: { apiKey?: string; baseUrl?: string }): ProviderEntry {
  const entry: ProviderEntry = provider === LOCAL ? { plugin: "openai-compatible" } : {};
  if (opts.baseUrl) entry.baseUrl = opts.baseUrl;
  if (opts.apiKey) entry.apiKey = opts.apiKey;
  return entry;
}

/**
 * One cheap live call with the key this entry gives (the plugin's models list). A `${VAR}`
 * that is unset here cannot be checked: said, not failed.
 */
export async function checkEntry(id: string, entry: ProviderEntry, env: NodeJS.ProcessEnv): Promise<KeyCheck> {
  let config;
  try {
    config = parseConfig({ providers: { [id]: entry } }, env);
  } catch {
    return { provider: id, status: "unchecked", detail: "not checked: its variable is not set in this shell (export it before gateway serve)" };
  }
  const instance = (await loadProviders(config, env, process.cwd())).get(id)!;
  return checkKey(instance);
}

/** The line printed for a check; the key never appears. */
export const checkLine = (c: KeyCheck): string => `  ${c.provider}: ${c.provider === LOCAL ? "server" : "key"} ${c.status === "no_key" ? "missing" : c.detail}`;

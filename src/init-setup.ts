/**
 * What `gateway init` writes for each provider, and the live check of its key (contract.md
 * §13). A provider entry holds either a `${VAR}` reference or the key itself (then the file
 * is written 0600); the check runs on exactly what `serve` would load from that entry.
 */
import { parseConfig } from "./config.js";
import { loadProviders } from "./plugins.js";
import { checkKey, type KeyCheck } from "./provider-check.js";

/** The conventional key variables, as the providers' SDKs read them. */
export const KEY_VARS: Record<string, string> = {
  openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY", google: "GEMINI_API_KEY", azure: "AZURE_OPENAI_API_KEY",
  bedrock: "AWS_ACCESS_KEY_ID", mistral: "MISTRAL_API_KEY", groq: "GROQ_API_KEY", deepseek: "DEEPSEEK_API_KEY",
  xai: "XAI_API_KEY", together: "TOGETHER_API_KEY", fireworks: "FIREWORKS_API_KEY",
};

/** `local`: an OpenAI-compatible server on this machine (Ollama's default address; LM Studio :1234, vLLM :8000). */
export const LOCAL = "local";
export const LOCAL_URL = "http://localhost:11434/v1";

export interface ProviderEntry {
  plugin?: string;
  baseUrl?: string;
  apiKey?: string;
}

/** Bedrock's key is the access key id and the secret together (providers/bedrock). */
export const envReference = (provider: string, variable = KEY_VARS[provider]!): string =>
  provider === "bedrock" && variable === "AWS_ACCESS_KEY_ID" ? "${AWS_ACCESS_KEY_ID}:${AWS_SECRET_ACCESS_KEY}" : `\${${variable}}`;

/** Is the variable(s) behind the conventional reference set in this environment? */
export const envHasKey = (provider: string, env: NodeJS.ProcessEnv): boolean =>
  provider === "bedrock" ? Boolean(env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) : Boolean(env[KEY_VARS[provider]!]);

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
export const checkLine = (c: KeyCheck): string =>
  `  ${c.provider}: ${c.provider === LOCAL ? "server" : "key"} ${c.status === "no_key" ? "missing" : c.detail}`;

/** The questions `gateway init` asks on a TTY, one provider at a time (@inquirer/prompts; keys masked). */
import type { ProviderPlugin } from "../../plugin/contract.js";
import type { KeyCheck } from "../../upstream/provider-check.js";
import { checkEntry, checkLine, entryFor, envHasKey, envReference, keyedPlugins, keyVariables, LOCAL, LOCAL_URL, type ProviderEntry } from "../init-setup.js";

type Prompts = typeof import("@inquirer/prompts");

export async function askProviders(p: Prompts, env: NodeJS.ProcessEnv): Promise<string[]> {
  return p.checkbox({
    message: "Providers (space to select, enter to confirm):",
    choices: [
      ...(await keyedPlugins()).map((k) => ({ value: k.name, name: `${k.name} (${k.describe?.displayName ?? k.name})`, checked: envHasKey(k, env) })),
      { value: LOCAL, name: `${LOCAL}: an OpenAI-compatible server on this machine (Ollama, LM Studio, vLLM)` },
    ],
  });
}

async function askKey(p: Prompts, provider: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (provider === LOCAL) {
    const key = await p.password({ message: `${LOCAL}: API key, if the server wants one (enter for none):`, mask: "*" });
    return key.trim() || undefined;
  }
  const plugin = (await keyedPlugins()).find((k) => k.name === provider)!;
  const how = await p.select({
    message: `${provider}: where is the key?`,
    default: envHasKey(plugin, env) ? "env" : "paste",
    choices: [
      { value: "env", name: `in ${keyVariables(plugin).join(" and ")}${envHasKey(plugin, env) ? " (set in this shell)" : ""}` },
      { value: "paste", name: "paste it here (written into the config file, mode 0600)" },
      { value: "other", name: "in another environment variable" },
    ],
  });
  if (how === "env") return envReference(plugin);
  if (how === "other") {
    const name = await p.input({
      message: `${provider}: variable name:`,
      validate: (v) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(v.trim()) || "letters, digits and _",
    });
    return envReference(plugin, name.trim());
  }
  const hint = pasteHint(plugin);
  return (await p.password({ message: `${provider} API key${hint}:`, mask: "*", validate: (v) => v.trim() !== "" || "required" })).trim();
}

/** A key of several variables is pasted in the template's shape (Bedrock: " (AWS_ACCESS_KEY_ID:AWS_SECRET_ACCESS_KEY)"). */
const pasteHint = (plugin: ProviderPlugin): string => (plugin.describe?.keyTemplate ? ` (${plugin.describe.keyTemplate.replace(/\$\{([^}]+)\}/g, "$1")})` : "");

async function askBaseUrl(p: Prompts, provider: string): Promise<string | undefined> {
  const url = await p.input({
    message:
      provider === LOCAL
        ? `${LOCAL}: base URL (Ollama; LM Studio http://localhost:1234/v1, vLLM http://localhost:8000/v1):`
        : `${provider}: base URL (enter for the default):`,
    default: provider === LOCAL ? LOCAL_URL : undefined,
    validate: (v) => v.trim() === "" || URL.canParse(v.trim()) || "a URL like https://host/v1",
  });
  return url.trim() || undefined;
}

/**
 * Asks for one provider's key and base URL, checks it (unless `check` is false), and asks again:
 * the key when it was rejected, the base URL when it answered 404 (docs/cli.md). Declined, the
 * entry is written as given, with a warning.
 */
export async function askProvider(p: Prompts, provider: string, env: NodeJS.ProcessEnv, check: boolean): Promise<ProviderEntry> {
  let apiKey = await askKey(p, provider, env);
  for (;;) {
    const entry = entryFor(provider, { apiKey, baseUrl: await askBaseUrl(p, provider) });
    if (!check) return entry;
    const result = await checkEntry(provider, entry, env);
    process.stdout.write(`${checkLine(result)}\n`);
    const again = AGAIN[result.status];
    if (!again) return entry;
    if (!(await p.confirm({ message: `${provider}: enter the ${again} again?`, default: true }))) {
      process.stdout.write(`  warning: ${provider} written as it is; gateway doctor will fail until its ${again} is fixed\n`);
      return entry;
    }
    if (again === "key") apiKey = await askKey(p, provider, env);
  }
}

/** What to ask again after a failed check. */
const AGAIN: Partial<Record<KeyCheck["status"], "key" | "base URL">> = { rejected: "key", not_found: "base URL" };

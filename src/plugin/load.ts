/**
 * Provider plugins: loaded by name from `providers/<name>/`, or from a path or package
 * for third-party plugins, and turned into provider instances from the config.
 */
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Config } from "../config/config.js";
import { nearMiss } from "../config/diagnostics.js";
import { UsageError } from "../core/errors.js";
import { checkAgainstPlugins } from "./config-check.js";
import type { ProviderPlugin, ProviderSettings } from "./contract.js";

/**
 * The built-in plugins, folders of providers/: the one place the core names providers.
 * Everything else (BYOK, key variables, catalog sources, keyless servers) is read from
 * each plugin's `describe`. A new provider is its folder plus one line here. Each line is an
 * import with a literal path, so the serve bundle (scripts/bundle.mjs) takes the adapters in
 * with the core, each as a chunk of its own loaded only when named (docs/architecture.md,
 * "Memory and start-up").
 */
type PluginModule = { default?: unknown };
const BUILTIN: Readonly<Record<string, () => Promise<PluginModule>>> = {
  openai: () => import("../../providers/openai/index.js"),
  anthropic: () => import("../../providers/anthropic/index.js"),
  google: () => import("../../providers/google/index.js"),
  azure: () => import("../../providers/azure/index.js"),
  bedrock: () => import("../../providers/bedrock/index.js"),
  mistral: () => import("../../providers/mistral/index.js"),
  groq: () => import("../../providers/groq/index.js"),
  deepseek: () => import("../../providers/deepseek/index.js"),
  xai: () => import("../../providers/xai/index.js"),
  together: () => import("../../providers/together/index.js"),
  fireworks: () => import("../../providers/fireworks/index.js"),
  cerebras: () => import("../../providers/cerebras/index.js"),
  "openai-compatible": () => import("../../providers/openai-compatible/index.js"),
};

const BUILTIN_NAMES = Object.keys(BUILTIN);

export interface ProviderInstance {
  settings: ProviderSettings;
  plugin: ProviderPlugin;
}

const isBuiltin = (name: string): boolean => Object.hasOwn(BUILTIN, name);

const cache = new Map<string, Promise<ProviderPlugin>>();

export function loadPlugin(spec: string, baseDir = process.cwd()): Promise<ProviderPlugin> {
  const builtin = isBuiltin(spec);
  const target = builtin ? `builtin:${spec}` : spec.startsWith(".") || isAbsolute(spec) ? pathToFileURL(resolve(baseDir, spec)).href : spec;
  let loaded = cache.get(target);
  if (!loaded) {
    const imported: Promise<PluginModule> = builtin ? BUILTIN[spec]!() : import(target);
    loaded = imported.then((mod) => checkPlugin(spec, mod.default));
    cache.set(target, loaded);
  }
  return loaded.catch((err: unknown) => {
    cache.delete(target);
    if (err instanceof UsageError) throw err;
    // A bare name that is neither built in nor installed: a typo far more often than a package.
    if (target === spec && (err as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") throw unknownPlugin(spec);
    throw new UsageError(`cannot load provider plugin '${spec}': ${(err as Error).message}`);
  });
}

/** The built-in plugin names, for messages. */
const builtinPlugins = (): string[] => [...BUILTIN_NAMES].sort();

/** Every built-in plugin, in the list's order (their descriptions drive the bundled catalog, `init` and `byok`). */
export const loadBuiltins = (): Promise<ProviderPlugin[]> => Promise.all(BUILTIN_NAMES.map((name) => loadPlugin(name)));

/** The providers an account can bring its own key for (docs/billing.md's eleven), by their descriptions. */
export const byokPlugins = async (): Promise<ProviderPlugin[]> => (await loadBuiltins()).filter((p) => p.describe?.byok === true);

function unknownPlugin(spec: string): UsageError {
  const near = nearMiss(spec, builtinPlugins());
  return new UsageError(
    `unknown provider plugin '${spec}'${near ? ` (did you mean ${near}?)` : ""}: the built-in plugins are ${builtinPlugins().join(", ")} ` +
      "(openai-compatible serves any OpenAI-compatible server: Ollama, LM Studio, vLLM); a third-party plugin is a path (./my-plugin.js) or an installed package name",
  );
}

function checkPlugin(spec: string, value: unknown): ProviderPlugin {
  const p = value as Partial<ProviderPlugin> | undefined;
  const ok =
    p &&
    typeof p.name === "string" &&
    p.defaults &&
    typeof p.chat?.request === "function" &&
    typeof p.chat.response === "function" &&
    typeof p.chat.stream === "function";
  if (!ok) throw new UsageError(`provider plugin '${spec}' does not default-export a provider (name, defaults, chat.request/response/stream)`);
  return p as ProviderPlugin;
}

/**
 * Instances from the config; with no `providers:` at all (zero-config), every built-in
 * provider whose key variable is set. Each BYOK provider (`describe.byok`) not configured gets
 * an implicit key-less instance, so an account's own key works without operator setup.
 */
export async function loadProviders(config: Config, env: NodeJS.ProcessEnv, baseDir: string): Promise<Map<string, ProviderInstance>> {
  const instances = new Map<string, ProviderInstance>();
  const configured = new Map<string, { plugin: ProviderPlugin; builtin: boolean }>();
  const entries = Object.entries(config.providers);
  const zeroConfig = entries.length === 0;
  for (const [id, entry] of entries) {
    const { plugin: spec = id, baseUrl, apiKey, ...options } = entry;
    const plugin = await loadPlugin(spec, baseDir).catch((err: Error) => {
      // Without `plugin:` the instance name is the plugin name: say so, the fix is often to add one.
      throw new UsageError(`providers.${id}${entry.plugin ? ".plugin" : ` (no plugin: given, so '${id}' is taken as the plugin name)`}: ${err.message}`);
    });
    configured.set(id, { plugin, builtin: isBuiltin(spec) });
    const fromEnv = envDefaults(plugin, env);
    instances.set(id, {
      plugin,
      settings: {
        id,
        plugin: plugin.name,
        baseUrl: baseUrl ?? fromEnv.baseUrl ?? plugin.defaults.baseUrl,
        apiKey: apiKey || fromEnv.apiKey || undefined,
        options,
      },
    });
  }
  for (const plugin of await loadBuiltins()) {
    const name = plugin.name;
    if (instances.has(name) || [...instances.values()].some((i) => i.plugin.name === name)) continue;
    const fromEnv = zeroConfig ? envDefaults(plugin, env) : {};
    if (plugin.describe?.byok !== true && !fromEnv.apiKey) continue;
    const baseUrl = fromEnv.baseUrl ?? plugin.defaults.baseUrl;
    instances.set(name, { plugin, settings: { id: name, plugin: name, baseUrl, apiKey: fromEnv.apiKey || undefined, options: {} } });
  }
  await checkAgainstPlugins(config, configured, [...instances.keys()]);
  return instances;
}

/** The conventional variables of a plugin: its own `fromEnv`, else `apiKeyEnv`. */
function envDefaults(plugin: ProviderPlugin, env: NodeJS.ProcessEnv): { apiKey?: string; baseUrl?: string } {
  const derived = plugin.defaults.fromEnv?.(env) ?? {};
  const apiKey = derived.apiKey ?? (plugin.defaults.apiKeyEnv ? env[plugin.defaults.apiKeyEnv] : undefined);
  return { apiKey: apiKey || undefined, baseUrl: derived.baseUrl };
}

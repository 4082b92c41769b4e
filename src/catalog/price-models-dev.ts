/**
 * models.dev's `api.json` (github.com/sst/models.dev): providers by id, each with its models by
 * id, USD per 1M tokens, e.g.
 *
 *     "anthropic": {"id": "anthropic", "models": {"claude-sonnet-4-5": {"id": "claude-sonnet-4-5",
 *       "cost": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75},
 *       "limit": {"context": 200000, "output": 64000}, "modalities": {"output": ["text"]}}}}
 *
 * A price with `cost.tiers` (or the older `cost.context_over_200k`) is higher above a prompt size.
 */
import { NOT_CHAT_NAME } from "./model-kind.js";
import { isObject, listedPrice, type ListedPrice, type ReadPrices } from "./price-units.js";

export function modelsDevPrices(list: Record<string, unknown>, vendors: Map<string, string>): ReadPrices {
  const prices: ListedPrice[] = [];
  let entries = 0;
  for (const [provider, p] of Object.entries(list)) {
    if (!isObject(p) || !isObject(p.models)) continue;
    const vendor = vendors.get(provider);
    for (const [key, m] of Object.entries(p.models)) {
      if (!isObject(m)) continue;
      entries++;
      const model = typeof m.id === "string" ? m.id : key;
      if (!vendor || !answersText(m) || NOT_CHAT_NAME.test(model)) continue;
      const price = priceOf(`${vendor}/${model}`, m);
      if (price) prices.push(price);
    }
  }
  return { entries, prices };
}

const answersText = (m: Record<string, unknown>): boolean => {
  const output = isObject(m.modalities) ? m.modalities.output : undefined;
  return !Array.isArray(output) || output.includes("text");
};

function priceOf(id: string, m: Record<string, unknown>): ListedPrice | undefined {
  const cost = isObject(m.cost) ? m.cost : {};
  const limit = isObject(m.limit) ? m.limit : {};
  const tiered = (Array.isArray(cost.tiers) && cost.tiers.length > 0) || cost.context_over_200k !== undefined;
  const raw = {
    prompt: cost.input,
    completion: cost.output,
    cacheRead: cost.cache_read,
    cacheWrite: cost.cache_write,
    context: limit.context,
    output: limit.output,
    tiered,
  };
  return listedPrice(id, raw, 0);
}

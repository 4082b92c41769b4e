/**
 * LiteLLM's `model_prices_and_context_window.json` (github.com/BerriAI/litellm): one entry per
 * model key, USD per token, e.g.
 *
 *     "claude-sonnet-4-5": {"litellm_provider": "anthropic", "mode": "chat",
 *       "input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05,
 *       "cache_read_input_token_cost": 3e-07, "cache_creation_input_token_cost": 3.75e-06,
 *       "input_cost_per_token_above_200k_tokens": 6e-06, "max_input_tokens": 200000, "max_output_tokens": 64000}
 *
 * A provider's keys other than OpenAI's and Anthropic's carry its name as a prefix
 * (`gemini/gemini-2.5-pro`), dropped for the catalog id. `sample_spec` documents the fields.
 */
import { NOT_CHAT_NAME } from "./model-kind.js";
import { isObject, listedPrice, type ListedPrice, type ReadPrices } from "./price-units.js";

/** `<field>_above_<N>k_tokens`: a higher price above a prompt size. */
const TIER = /_above_\d+k_tokens$/;

export function litellmPrices(list: Record<string, unknown>, vendors: Map<string, string>): ReadPrices {
  const prices: ListedPrice[] = [];
  let entries = 0;
  for (const [key, e] of Object.entries(list)) {
    if (key === "sample_spec" || !isObject(e)) continue;
    entries++;
    const provider = typeof e.litellm_provider === "string" ? e.litellm_provider : "";
    const vendor = vendors.get(provider);
    const model = key.startsWith(`${provider}/`) ? key.slice(provider.length + 1) : key;
    if (!vendor || e.mode !== "chat" || NOT_CHAT_NAME.test(model)) continue;
    const price = priceOf(`${vendor}/${model}`, e);
    if (price) prices.push(price);
  }
  return { entries, prices };
}

function priceOf(id: string, e: Record<string, unknown>): ListedPrice | undefined {
  const raw = {
    prompt: e.input_cost_per_token,
    completion: e.output_cost_per_token,
    cacheRead: e.cache_read_input_token_cost,
    cacheWrite: e.cache_creation_input_token_cost,
    context: e.max_input_tokens,
    output: e.max_output_tokens,
    tiered: Object.keys(e).some((k) => TIER.test(k)),
  };
  return listedPrice(id, raw, 6);
}

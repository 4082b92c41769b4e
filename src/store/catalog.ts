/** The model catalog as stored: what each model costs and which endpoints serve it. */
import type { ModelPreferences } from "../core/routing-fields.js";
import type { PriceOrigin } from "./model-prices.js";

export interface Endpoint {
  /** Provider instance id (the key of `providers:` in the config). */
  provider: string;
  /** Upstream model name. */
  model: string;
  /** This endpoint's own prices (config `endpoints[].pricing`, nano-USD per 1M tokens); absent: the model's. */
  pricing?: EndpointPrices;
}

export interface EndpointPrices {
  prompt: number;
  completion: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** nano-USD per 1,000 calls of a server-side tool, by name (config `pricing.tool_calls`). */
  toolCalls?: Record<string, number>;
}

/** What a model can do; an absent flag is unknown (the gateway does not refuse on a guess). */
export interface ModelCapabilities {
  tools?: boolean;
  structured_output?: boolean;
  images?: boolean;
  reasoning?: boolean;
  web_search?: boolean;
  /** The model kind: absent `chat` means a chat model; `embeddings` must be true to serve /v1/embeddings. */
  chat?: boolean;
  embeddings?: boolean;
}

export interface CatalogModel {
  id: string;
  ownedBy: string;
  /** nano-USD per 1M tokens; null when unknown (such a model is not billable on the platform). */
  promptPrice: number | null;
  completionPrice: number | null;
  /** nano-USD per 1M cached prompt tokens read / written; absent: the prompt price. */
  cacheReadPrice?: number | null;
  cacheWritePrice?: number | null;
  /** nano-USD per 1,000 calls of a server-side tool, by name (`pricing.tool_calls`, docs/billing.md); absent: the provider's list price. */
  toolCallPrices?: Record<string, number>;
  contextLength: number | null;
  maxOutput: number | null;
  endpoints: Endpoint[];
  order?: "latency" | "fixed";
  /** The config's provider preferences for this model (docs/routing.md). */
  provider?: ModelPreferences;
  capabilities?: ModelCapabilities;
  /** `list`: added by a price list (catalog/priced.ts), in memory only. */
  source: "bundled" | "live" | "config" | "list";
  /** Where its price came from when not from `source`: a stored price (catalog/priced.ts); never stored in the catalog table. */
  priceSource?: PriceOrigin;
  created: number;
}

export interface CatalogStore {
  replaceCatalog(models: CatalogModel[]): Promise<void>;
  catalog(): Promise<CatalogModel[]>;
}

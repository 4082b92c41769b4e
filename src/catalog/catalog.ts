/**
 * The model catalog in memory: which `vendor/model` ids exist, their prices and limits,
 * and the endpoints that serve them. Built once at start from the stored catalog (or the
 * bundled one before the first `models sync`) with the config's `models:` on top.
 */
import type { ModelRoute } from "../config/config.js";
import { modelAmbiguous } from "../core/errors.js";
import { usdToNano } from "../core/money.js";
import type { ProviderInstance } from "../plugin/load.js";
import type { ProviderPreferences } from "../core/routing-fields.js";
import type { CatalogModel, Endpoint, EndpointPrices, ModelCapabilities } from "../store/index.js";

export interface RoutedEndpoint extends Endpoint {
  instance: ProviderInstance;
  apiKey: string;
  byok: boolean;
}

export interface Route {
  model: CatalogModel;
  endpoints: RoutedEndpoint[];
  /** Provider preferences that order these endpoints (upstream/preferences.ts); absent: health and latency. */
  preferences?: ProviderPreferences;
}

export function configModel(route: ModelRoute, created: number): CatalogModel {
  return {
    id: route.id,
    ownedBy: route.id.split("/")[0]!,
    promptPrice: route.pricing ? usdToNano(route.pricing.prompt) : null,
    completionPrice: route.pricing ? usdToNano(route.pricing.completion) : null,
    // Cache prices come with the pricing they belong to: a config price without them bills cached tokens at its prompt price.
    ...(route.pricing?.cache_read !== undefined ? { cacheReadPrice: usdToNano(route.pricing.cache_read) } : {}),
    ...(route.pricing?.cache_write !== undefined ? { cacheWritePrice: usdToNano(route.pricing.cache_write) } : {}),
    ...(route.pricing?.tool_calls ? { toolCallPrices: toolCallPrices(route.pricing.tool_calls) } : {}),
    contextLength: route.context_length ?? null,
    maxOutput: route.max_output ?? null,
    // No endpoints: the entry changes the catalog model of that id (mergeCatalog keeps its endpoints).
    endpoints: route.endpoints?.map(configEndpoint) ?? [],
    order: route.order,
    ...(route.provider ? { provider: route.provider } : {}),
    ...(route.capabilities || route.kind ? { capabilities: { ...route.capabilities, ...kindCapabilities(route.kind) } } : {}),
    source: "config",
    created,
  };
}

function configEndpoint(e: NonNullable<ModelRoute["endpoints"]>[number]): Endpoint {
  if (!e.pricing) return { provider: e.provider, model: e.model };
  const p = e.pricing;
  const pricing: EndpointPrices = { prompt: usdToNano(p.prompt), completion: usdToNano(p.completion) };
  if (p.cache_read !== undefined) pricing.cacheRead = usdToNano(p.cache_read);
  if (p.cache_write !== undefined) pricing.cacheWrite = usdToNano(p.cache_write);
  if (p.tool_calls) pricing.toolCalls = toolCallPrices(p.tool_calls);
  return { provider: e.provider, model: e.model, pricing };
}

/** `pricing.tool_calls` (USD per 1,000 calls) as nano-USD per 1,000 calls; also a plugin's list prices (catalog/prices.ts). */
export function toolCallPrices(usd: Readonly<Record<string, string | number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(usd).map(([name, price]) => [name, usdToNano(price)]));
}

/** `kind: embeddings` in the config: not a chat model. */
function kindCapabilities(kind: ModelRoute["kind"]): ModelCapabilities {
  if (kind === "embeddings") return { chat: false, embeddings: true };
  return kind === "chat" ? { chat: true, embeddings: false } : {};
}

/**
 * Config entries win over catalog entries of the same id. An entry without endpoints changes the
 * catalog model it names (its endpoints, and its prices unless it gives `pricing`, are kept), so
 * a synced model gets a price in config by id alone (docs/cli.md, "The config file").
 */
export function mergeCatalog(base: CatalogModel[], overrides: CatalogModel[]): CatalogModel[] {
  const byId = new Map(base.map((m) => [m.id, m]));
  for (const m of overrides) {
    const prior = byId.get(m.id);
    if (!prior) {
      byId.set(m.id, m);
      continue;
    }
    const capabilities = prior.capabilities || m.capabilities ? { ...prior.capabilities, ...m.capabilities } : undefined;
    const overlay = m.endpoints.length === 0;
    byId.set(m.id, {
      ...(overlay ? prior : {}),
      ...m,
      ...(overlay ? { endpoints: prior.endpoints, ...(m.promptPrice === null ? pricesOf(prior) : ownPrices(m)) } : {}),
      contextLength: m.contextLength ?? prior.contextLength,
      maxOutput: m.maxOutput ?? prior.maxOutput,
      ...(capabilities ? { capabilities } : {}),
    });
  }
  // Ordinal order: localeCompare's first call costs ~17 ms of ICU set-up at start.
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A config price comes with its own cache prices (none: the prompt price) and is the config's, whatever priced the model before. */
const ownPrices = (m: CatalogModel): Partial<CatalogModel> => ({
  cacheReadPrice: m.cacheReadPrice,
  cacheWritePrice: m.cacheWritePrice,
  priceSource: undefined,
});

/** The price fields of a model, and where they came from. */
function pricesOf(m: CatalogModel): Partial<CatalogModel> {
  const { promptPrice, completionPrice, cacheReadPrice, cacheWritePrice, source, priceSource } = m;
  return { promptPrice, completionPrice, cacheReadPrice, cacheWritePrice, source, priceSource };
}

/**
 * A model a provider listed (`models sync`) that nobody priced: never billed at $0 on the
 * platform key, so served only with an account's own key or by a key-less local server.
 */
export const isUnpriced = (m: CatalogModel): boolean => m.source === "live" && (m.promptPrice === null || m.completionPrice === null);

export class Catalog {
  private byId: Map<string, CatalogModel>;

  constructor(
    models: CatalogModel[],
    private instances: Map<string, ProviderInstance>,
  ) {
    this.byId = new Map(models.map((m) => [m.id, m]));
  }

  get size(): number {
    return this.byId.size;
  }

  /** An endpoint names an instance id, or (bundled entries) a plugin served by any instance of it. */
  private instancesFor(name: string): ProviderInstance[] {
    const exact = this.instances.get(name);
    if (exact) return [exact];
    return [...this.instances.values()].filter((i) => i.plugin.name === name);
  }

  /** The endpoints this account can use: a platform key, or the account's own key for the plugin. */
  route(id: string, byokKey: (plugin: string) => string | undefined): Route | undefined {
    const model = this.byId.get(id);
    if (!model) return undefined;
    // A live-synced model nobody priced is not billed at 0 on the platform key: BYOK or local only.
    const unpriced = isUnpriced(model);
    const endpoints: RoutedEndpoint[] = [];
    for (const e of model.endpoints) {
      for (const instance of this.instancesFor(e.provider)) {
        const own = byokKey(instance.plugin.name);
        if (own === undefined && unpriced && !isKeyless(instance)) continue;
        const apiKey = own ?? instance.settings.apiKey;
        if (apiKey === undefined && !isKeyless(instance)) continue;
        const routed: RoutedEndpoint = { provider: instance.settings.id, model: e.model, instance, apiKey: apiKey ?? "", byok: own !== undefined };
        if (e.pricing) routed.pricing = e.pricing;
        endpoints.push(routed);
      }
    }
    return endpoints.length ? { model, endpoints } : undefined;
  }

  /**
   * What a request's model (after aliases) routes to: its catalog id, else for a bare id (no `/`)
   * the one `vendor/<id>` this account can use, as existing clients send `gpt-4o-mini`
   * (docs/cli.md "What serve tells the operator"). Several such models: a 404 listing them.
   * `vendor`, the route's own (`anthropic` on /v1/messages), is asked first for a bare id.
   */
  find(requested: string, byokKey: (plugin: string) => string | undefined, vendor?: string): Route | undefined {
    if (this.byId.has(requested) || requested.includes("/")) return this.route(requested, byokKey);
    const own = vendor === undefined ? undefined : this.route(`${vendor}/${requested}`, byokKey);
    if (own) return own;
    const routes = this.idsNamed(requested).flatMap((id) => this.route(id, byokKey) ?? []);
    if (routes.length > 1)
      throw modelAmbiguous(
        requested,
        routes.map((r) => r.model.id),
      );
    return routes[0];
  }

  /** For a 404's message only (src/catalog/model-hint.ts): never on the path of a routed request. */
  model(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }

  /** Catalog ids whose model part is `name` (`gpt-4o-mini` → `openai/gpt-4o-mini`), for a 404's hint. */
  idsNamed(name: string): string[] {
    return [...this.byId.keys()].filter((id) => id.slice(id.indexOf("/") + 1) === name);
  }

  /** The providers that would serve this model if they had a key (no platform key, not key-less). */
  keylessProviders(id: string): string[] {
    const model = this.byId.get(id);
    if (!model) return [];
    const instances = model.endpoints.flatMap((e) => this.instancesFor(e.provider));
    return [...new Set(instances.filter((i) => i.settings.apiKey === undefined && !isKeyless(i)).map((i) => i.settings.id))];
  }

  /** Instances with a platform key that list this unpriced model: it would be served there once priced (model-hint.ts, `models list`). */
  unpricedProviders(id: string): string[] {
    const model = this.byId.get(id);
    if (!model || !isUnpriced(model)) return [];
    const instances = model.endpoints.flatMap((e) => this.instancesFor(e.provider));
    return [...new Set(instances.filter((i) => i.settings.apiKey !== undefined && !isKeyless(i)).map((i) => i.settings.id))];
  }

  /** Every catalog id, in order. */
  ids(): string[] {
    return [...this.byId.keys()];
  }

  list(byokKey: (plugin: string) => string | undefined): CatalogModel[] {
    return [...this.byId.keys()].flatMap((id) => {
      const r = this.route(id, byokKey);
      return r ? [r.model] : [];
    });
  }
}

/** A local OpenAI-compatible server (Ollama, vLLM) usually needs no key at all. */
function isKeyless(instance: ProviderInstance): boolean {
  return instance.plugin.describe?.keyless === true;
}

/** Catalog data's cache prices (USD per 1M: models.dev `cost.cache_read` / `cache_write`, genai-prices `cache_*_mtok`), where exact; a missing one bills at the prompt price. */
export function cachePrices(read: unknown, write: unknown): Pick<CatalogModel, "cacheReadPrice" | "cacheWritePrice"> {
  const exact = (usd: unknown) => {
    if (typeof usd !== "number") return undefined;
    try {
      return usdToNano(usd);
    } catch {
      return undefined;
    }
  };
  const cacheReadPrice = exact(read);
  const cacheWritePrice = exact(write);
  return { ...(cacheReadPrice !== undefined && { cacheReadPrice }), ...(cacheWritePrice !== undefined && { cacheWritePrice }) };
}

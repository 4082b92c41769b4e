/** `gateway models sync|list|price`. */
import { dirname } from "node:path";
import type { Command } from "commander";
import type { Catalog } from "../../catalog/catalog.js";
import { nanoToUsd } from "../../core/money.js";
import type { CatalogModel } from "../../store/index.js";
import { existingAccount, output, table, withStore } from "./context.js";
import { priceAction, type PriceOptions } from "./models-price.js";
import { syncAction, type SyncOptions } from "./models-sync.js";
import { positiveInt } from "./parse.js";

/** `models list --json` row (docs/cli.md); prices are USD per 1M tokens, null when unknown. */
interface ModelRow {
  id: string;
  owned_by: string;
  pricing: { prompt: string | null; completion: string | null };
  context_length: number | null;
  /** Provider instances that would serve it for this account (for an unpriced model: that list it). */
  providers: string[];
  /** Where its price comes from: bundled, config, operator (`models price`), file (a price list), null when it has none. */
  price_source: string | null;
  /** Listed by a provider with no price: served only with the account's own key (docs/billing.md, "Model prices"). */
  unpriced: boolean;
}

const usd = (nano: number | null): string | null => (nano === null ? null : nanoToUsd(nano));

function row(m: CatalogModel, providers: string[], unpriced: boolean): ModelRow {
  return {
    id: m.id,
    owned_by: m.ownedBy,
    pricing: { prompt: usd(m.promptPrice), completion: usd(m.completionPrice) },
    context_length: m.contextLength,
    providers,
    price_source: m.promptPrice === null ? null : (m.priceSource ?? m.source),
    unpriced,
  };
}

/** What this account can use, then (unless every plugin counts, --all) the unpriced models its platform keys' providers list. */
function rowsOf(catalog: Catalog, keyFor: (plugin: string) => string | undefined, all: boolean): ModelRow[] {
  // Usable with the account's own key yet refused on the gateway's: still unpriced (a key-less local server's are free).
  const usable = catalog
    .list(keyFor)
    .map((m) => row(m, [...new Set(catalog.route(m.id, keyFor)?.endpoints.map((e) => e.provider))], catalog.unpricedProviders(m.id).length > 0));
  if (all) return usable;
  const listed = new Set(usable.map((r) => r.id));
  const unpriced = catalog.ids().flatMap((id) => {
    const providers = listed.has(id) ? [] : catalog.unpricedProviders(id);
    return providers.length ? [row(catalog.model(id)!, providers, true)] : [];
  });
  return [...usable, ...unpriced].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const SOURCE: Record<string, string> = { bundled: "bundled", config: "config", operator: "models price", file: "price list", live: "provider" };

function listText(rows: ModelRow[]): string {
  if (rows.length === 0) return "No usable models: configure a provider key or a BYOK key.";
  const priced = (r: ModelRow) => (r.unpriced ? "unpriced: BYOK only" : r.price_source === null ? "-" : (SOURCE[r.price_source] ?? r.price_source));
  return table([
    ["MODEL", "PROMPT $/1M", "COMPLETION $/1M", "CONTEXT", "PROVIDERS", "PRICE"],
    ...rows.map((r) => [r.id, r.pricing.prompt ?? "?", r.pricing.completion ?? "?", String(r.context_length ?? "-"), r.providers.join(","), priced(r)]),
  ]);
}

export function modelsCommand(program: Command): void {
  const models = program.command("models").description("the model catalog");

  models
    .command("sync")
    .description("refresh the catalog: bundled models + every model each configured provider lists (config `models:` still win)")
    .option("--strict", "exit 1 when a provider's live list fails")
    .option("--prices <file|url>", "also price models from LiteLLM's model_prices_and_context_window.json or models.dev's api.json")
    .option("--allow-lower", "let the price list lower a price the catalog has (otherwise kept and reported)")
    .option("--timeout <seconds>", "how long a --prices URL may take", positiveInt, 30)
    .action((opts: SyncOptions, cmd: Command) => syncAction(opts, cmd));

  models
    .command("price")
    .description("set the price of a catalog model (USD per 1M tokens), e.g. one a provider lists unpriced; --remove to unset")
    .argument("<id>", "the catalog id, vendor/model")
    .option("--prompt <usd>", "USD per 1M prompt tokens")
    .option("--completion <usd>", "USD per 1M completion tokens")
    .option("--cache-read <usd>", "USD per 1M cached prompt tokens read (default: the prompt price)")
    .option("--cache-write <usd>", "USD per 1M prompt tokens written to the cache (default: the prompt price)")
    .option("--remove", "remove the price set with this command")
    .action((id: string, opts: PriceOptions, cmd: Command) => priceAction(id, opts, cmd));

  models
    .command("list")
    .description("models an account can use, with prices (USD per 1M tokens; ? = unknown), and those its providers list unpriced")
    .option("--account <account>", "account (its BYOK keys count)", "default")
    .option("--all", "every catalog model a loaded provider could serve, usable or not")
    .action((opts: { account?: string; all?: boolean }, cmd: Command) =>
      withStore(cmd, async (store, loaded) => {
        const account = await existingAccount(store, opts);
        const { createGateway } = await import("../../gateway.js");
        const gw = await createGateway({ config: loaded.config, store, baseDir: loaded.file ? dirname(loaded.file) : process.cwd() });
        try {
          const byok = await gw.byok.forAccount(account);
          // --all: pretend every plugin has a key, so each endpoint with a loaded instance counts.
          const keyFor = opts.all ? () => "listing" : (plugin: string) => byok.readable(plugin);
          const rows = rowsOf(gw.catalog, keyFor, opts.all === true);
          output(cmd, rows, listText(rows));
        } finally {
          await gw.close();
        }
      }),
    );
}

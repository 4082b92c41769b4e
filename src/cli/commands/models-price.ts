/** `gateway models price <id> --prompt P --completion C [--cache-read R] [--cache-write W] | --remove` (docs/cli.md). */
import type { Command } from "commander";
import type { Config } from "../../config/config.js";
import type { Store } from "../../store/index.js";
import { UsageError } from "../../core/errors.js";
import { usdToNano } from "../../core/money.js";
import { ask, cliBy, output, withStore } from "./context.js";

export interface PriceOptions {
  prompt?: string;
  completion?: string;
  cacheRead?: string;
  cacheWrite?: string;
  remove?: boolean;
}

/** A non-negative USD amount per 1M tokens, exact to 1e-9; anything else is bad usage (exit 2). */
function price(flag: string, value: string): number {
  try {
    return usdToNano(value);
  } catch (err) {
    throw new UsageError(`--${flag}: ${(err as Error).message}`);
  }
}

const optional = (flag: string, value: string | undefined) => (value === undefined ? null : price(flag, value));

export function priceAction(id: string, opts: PriceOptions, cmd: Command): Promise<void> {
  const given = [opts.prompt, opts.completion, opts.cacheRead, opts.cacheWrite].some((v) => v !== undefined);
  if (opts.remove && given) throw new UsageError("--remove takes no prices");
  return withStore(cmd, async (store, loaded) => {
    const ops = await import("../../operations/model-price.js");
    if (opts.remove) {
      const removed = await ops.removeModelPrice(store, id, Date.now(), cliBy());
      return output(cmd, removed, `Removed the price of ${id}.`);
    }
    const input = {
      prompt: price("prompt", opts.prompt ?? (await ask("Prompt USD per 1M tokens", "--prompt"))),
      completion: price("completion", opts.completion ?? (await ask("Completion USD per 1M tokens", "--completion"))),
      cacheRead: optional("cache-read", opts.cacheRead),
      cacheWrite: optional("cache-write", opts.cacheWrite),
    };
    const catalog = await servedModels(store, loaded.config);
    const set = await ops.setModelPrice(store, catalog, id, input, Date.now(), cliBy());
    const wins = loaded.config.models.find((m) => m.id === id && m.pricing);
    const note = wins ? `\nnote: the config's models: entry for ${id} sets its pricing, which wins over this one (docs/billing.md, "Model prices").` : "";
    output(
      cmd,
      { ...set, effective: !wins },
      `Set the price of ${id}: ${set.pricing.prompt} prompt, ${set.pricing.completion} completion (USD per 1M tokens).${note}`,
    );
  });
}

/** The catalog `serve` routes (stored or bundled, stored prices, config on top): the ids a price may name. */
async function servedModels(store: Store, config: Config) {
  const [{ readServedCatalog }, { bundledCatalog }, { configModel }] = await Promise.all([
    import("../../catalog/priced.js"),
    import("../../catalog/bundled.js"),
    import("../../catalog/catalog.js"),
  ]);
  const now = Date.now();
  const bundled = await bundledCatalog();
  return readServedCatalog(
    store,
    () => bundled(now),
    config.models.map((m) => configModel(m, Math.floor(now / 1000))),
  );
}

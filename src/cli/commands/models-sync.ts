/** `gateway models sync [--strict] [--prices <file|url> [--allow-lower] [--timeout S]]` (docs/cli.md). */
import { dirname } from "node:path";
import type { Command } from "commander";
import type { PricesReport } from "../../operations/import-prices.js";
import type { ProviderPlugin } from "../../plugin/contract.js";
import type { SyncReport } from "../../operations/sync-models.js";
import { cliBy, output, withStore } from "./context.js";

export interface SyncOptions {
  strict?: boolean;
  prices?: string;
  allowLower?: boolean;
  timeout: number;
}

function pricesText(p: PricesReport): string[] {
  const lines = [
    `Prices from ${p.source} (${p.format}): ${p.entries} entries, ${p.prices} chat models of your providers; ` +
      `${p.models} catalog models priced by it (${p.added} added, ${p.newly_priced} unpriced before, ${p.changed} changed).`,
  ];
  for (const k of p.lower_kept) {
    lines.push(`  kept ${k.id} at ${k.pricing.prompt}/${k.pricing.completion}: the list says ${k.list.prompt}/${k.list.completion} (--allow-lower takes it)`);
  }
  if (p.tiered.length) lines.push(`  priced at the base tier (the list charges more above some prompt size): ${p.tiered.join(", ")}`);
  if (p.overridden) lines.push(`  ${p.overridden} of them keep the price gateway models price or the config gives them`);
  return lines;
}

function syncText(report: SyncReport): string {
  const providers = report.providers.map((p) => `  ${p.id}: ${p.ok ? `${p.models} live models` : `failed (${p.error})`}`);
  return [`Catalog: ${report.models} models.`, ...providers, ...(report.prices ? pricesText(report.prices) : [])].join("\n");
}

export function syncAction(opts: SyncOptions, cmd: Command): Promise<void> {
  return withStore(cmd, async (store, loaded) => {
    // Loaded here so other commands start without the provider and HTTP stack.
    const [{ loadBuiltins, loadProviders }, { syncModels }] = await Promise.all([import("../../plugin/load.js"), import("../../operations/sync-models.js")]);
    const instances = await loadProviders(loaded.config, process.env, loaded.file ? dirname(loaded.file) : process.cwd());
    // The list is read first: a source that fails changes nothing.
    const prices =
      opts.prices === undefined
        ? undefined
        : await readList(opts.prices, opts.timeout, [...(await loadBuiltins()), ...[...instances.values()].map((i) => i.plugin)]);
    const report = await syncModels(loaded.config, store, instances, prices && { prices: { ...prices, allowLower: opts.allowLower === true, by: cliBy() } });
    output(cmd, report, syncText(report));
    const failed = report.providers.filter((p) => !p.ok);
    if (opts.strict && failed.length) throw new Error(`${failed.length} provider(s) failed: ${failed.map((p) => p.id).join(", ")}`);
  });
}

async function readList(source: string, timeoutSeconds: number, plugins: ProviderPlugin[]) {
  const [{ readPriceSource, shownSource }, { readPriceList, vendorsOf }] = await Promise.all([
    import("../../operations/price-source.js"),
    import("../../catalog/price-list.js"),
  ]);
  const json = await readPriceSource(source, timeoutSeconds * 1000);
  try {
    return { list: readPriceList(json, vendorsOf(plugins)), source: shownSource(source) };
  } catch (err) {
    throw new Error(`${shownSource(source)}: ${(err as Error).message}`, { cause: err });
  }
}

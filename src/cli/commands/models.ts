/** `gateway models sync|list`. */
import { dirname } from "node:path";
import type { Command } from "commander";
import type { Catalog } from "../../catalog/catalog.js";
import { nanoToUsd } from "../../core/money.js";
import type { CatalogModel } from "../../store/index.js";
import type { SyncReport } from "../../operations/sync-models.js";
import { existingAccount, output, table, withStore } from "./context.js";

/** `models list --json` row (docs/cli.md); prices are USD per 1M tokens, null when unknown. */
interface ModelRow {
  id: string;
  owned_by: string;
  pricing: { prompt: string | null; completion: string | null };
  context_length: number | null;
  /** Provider instances that would serve it for this account. */
  providers: string[];
}

const usd = (nano: number | null): string | null => (nano === null ? null : nanoToUsd(nano));

function rowsOf(catalog: Catalog, keyFor: (plugin: string) => string | undefined): ModelRow[] {
  return catalog.list(keyFor).map((m: CatalogModel) => ({
    id: m.id,
    owned_by: m.ownedBy,
    pricing: { prompt: usd(m.promptPrice), completion: usd(m.completionPrice) },
    context_length: m.contextLength,
    providers: [...new Set(catalog.route(m.id, keyFor)?.endpoints.map((e) => e.provider))],
  }));
}

function listText(rows: ModelRow[]): string {
  if (rows.length === 0) return "No usable models: configure a provider key or a BYOK key.";
  return table([
    ["MODEL", "PROMPT $/1M", "COMPLETION $/1M", "CONTEXT", "PROVIDERS"],
    ...rows.map((r) => [r.id, r.pricing.prompt ?? "?", r.pricing.completion ?? "?", String(r.context_length ?? "-"), r.providers.join(",")]),
  ]);
}

function syncText(report: SyncReport): string {
  return [`Catalog: ${report.models} models.`, ...report.providers.map((p) => `  ${p.id}: ${p.ok ? `${p.models} live models` : `failed (${p.error})`}`)].join(
    "\n",
  );
}

export function modelsCommand(program: Command): void {
  const models = program.command("models").description("the model catalog");

  models
    .command("sync")
    .description("refresh the catalog: bundled models + each configured provider's live list (config `models:` still win)")
    .option("--strict", "exit 1 when a provider's live list fails")
    .action((opts: { strict?: boolean }, cmd: Command) =>
      withStore(cmd, async (store, loaded) => {
        // Loaded here so other commands start without the provider and HTTP stack.
        const [{ loadProviders }, { syncModels }] = await Promise.all([import("../../plugin/load.js"), import("../../operations/sync-models.js")]);
        const instances = await loadProviders(loaded.config, process.env, loaded.file ? dirname(loaded.file) : process.cwd());
        const report = await syncModels(loaded.config, store, instances);
        output(cmd, report, syncText(report));
        const failed = report.providers.filter((p) => !p.ok);
        if (opts.strict && failed.length) throw new Error(`${failed.length} provider(s) failed: ${failed.map((p) => p.id).join(", ")}`);
      }),
    );

  models
    .command("list")
    .description("models an account can use, with prices (USD per 1M tokens; ? = unknown)")
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
          const rows = rowsOf(gw.catalog, keyFor);
          output(cmd, rows, listText(rows));
        } finally {
          await gw.close();
        }
      }),
    );
}

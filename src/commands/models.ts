/** `gateway models sync|list`. */
import type { Command } from "commander";
import { Catalog } from "../catalog.js";
import { loadProviders } from "../plugins.js";
import { nanoToUsd } from "../money.js";
import { syncModels } from "../sync.js";
import { createGateway } from "../gateway.js";
import { accountOf, output, table, withStore } from "./context.js";
import { dirname } from "node:path";

export function modelsCommand(program: Command): void {
  const models = program.command("models").description("the model catalog");

  models.command("sync")
    .description("refresh the catalog: bundled models + each configured provider's live list + config")
    .option("--strict", "exit 1 when a provider's live list fails")
    .action((opts: { strict?: boolean }, cmd: Command) =>
      withStore(cmd, async (store, loaded) => {
        const instances = await loadProviders(loaded.config, process.env, loaded.file ? dirname(loaded.file) : process.cwd());
        const report = await syncModels(loaded.config, store, instances);
        const failed = report.providers.filter((p) => !p.ok);
        output(cmd, report, [
          `Catalog: ${report.models} models.`,
          ...report.providers.map((p) => `  ${p.id}: ${p.ok ? `${p.models} live models` : `failed (${p.error})`}`),
        ].join("\n"));
        if (opts.strict && failed.length) throw new Error(`${failed.length} provider(s) failed: ${failed.map((p) => p.id).join(", ")}`);
      }),
    );

  models.command("list")
    .description("models an account can use, with prices (USD per 1M tokens)")
    .option("--account <account>", "account (its BYOK keys count)", "default")
    .option("--all", "every catalog model, usable or not")
    .action((opts: { account?: string; all?: boolean }, cmd: Command) =>
      withStore(cmd, async (store, loaded) => {
        const gw = await createGateway({ config: loaded.config, store, baseDir: loaded.file ? dirname(loaded.file) : process.cwd() });
        try {
          const account = accountOf(opts);
          const byok = gw.byok.forAccount(account);
          const usable = opts.all ? allOf(gw.catalog) : gw.catalog.list((p) => byok.get(p));
          const rows = usable.map((m) => ({
            id: m.id, owned_by: m.ownedBy,
            pricing: { prompt: nanoToUsd(m.promptPrice ?? 0), completion: nanoToUsd(m.completionPrice ?? 0) },
            context_length: m.contextLength, providers: [...new Set(m.endpoints.map((e) => e.provider))],
          }));
          output(cmd, rows, rows.length === 0 ? "No usable models: configure a provider key or a BYOK key." : table([
            ["MODEL", "PROMPT $/1M", "COMPLETION $/1M", "CONTEXT", "PROVIDERS"],
            ...rows.map((r) => [r.id, r.pricing.prompt, r.pricing.completion, String(r.context_length ?? "-"), r.providers.join(",")]),
          ]));
        } finally {
          await gw.close();
        }
      }),
    );
}

function allOf(catalog: Catalog) {
  return catalog.list(() => "listing");
}

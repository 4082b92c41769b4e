/** `gateway db prune`: retention by hand (src/retention.ts); `serve` runs the same daily. */
import type { Command } from "commander";
import { pruneAll, retentionCutoff } from "../retention.js";
import { output, withStore } from "./context.js";
import { positiveInt } from "./parse.js";

export function dbCommand(program: Command): void {
  const db = program.command("db").description("database maintenance");

  db.command("prune")
    .description("fold ledger rows older than the retention into daily totals and delete them (totals and balances unchanged)")
    .option("--days <n>", "keep this many days of per-request rows (default: config retention.days, 90)", positiveInt)
    .action((opts: { days?: number }, cmd: Command) =>
      withStore(cmd, async (store, { config }) => {
        const days = opts.days ?? config.retention.days;
        const before = retentionCutoff(Date.now(), days);
        const r = await pruneAll(store, before);
        const when = new Date(before).toISOString();
        output(cmd, { days, before: when, ...r },
          `Folded ${r.rows} ledger rows from before ${when} into daily totals (${r.rollups} rollups written, ${r.attempts} attempts deleted).`);
      }),
    );
}

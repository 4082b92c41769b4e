/** `gateway db prune`: retention by hand (src/operations/retention.ts); `serve` runs the same daily. */
import type { Command } from "commander";
import { pruneAll, retentionCutoff } from "../../operations/retention.js";
import { nanoToUsd } from "../../core/money.js";
import { isPostgresUrl } from "../../core/database-url.js";
import { configFor, output, withStore } from "./context.js";
import { UsageError } from "../../core/errors.js";
import { loadSecret, requireFleetSecret } from "../../access/byok.js";
import { sealedSummary } from "../../access/sealed.js";
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
        output(
          cmd,
          { days, before: when, ...r },
          `Folded ${r.rows} ledger rows from before ${when} into daily totals (${r.rollups} rollups written, ${r.attempts} attempts deleted).`,
        );
      }),
    );

  db.command("migrate")
    .description("bring the database to the current schema (idempotent; serve also migrates at start, under a lock)")
    .action(async (_opts: unknown, cmd: Command) => {
      const { config } = await configFor(cmd);
      if (isPostgresUrl(config.database)) {
        const { createPool } = await import("../../store/pg/db.js");
        const { migratePg } = await import("../../store/pg/migrate.js");
        const pool = createPool(config.database, 1);
        try {
          const r = await migratePg(pool);
          output(
            cmd,
            { database: "postgres", ...r },
            r.from === r.to ? `Up to date (schema version ${r.to}).` : `Migrated from schema version ${r.from} to ${r.to}.`,
          );
        } finally {
          await pool.end();
        }
        return;
      }
      await withStore(cmd, async () => output(cmd, { database: "sqlite", file: config.database }, `Up to date (${config.database}).`));
    });

  db.command("copy")
    .description("copy a SQLite install into an empty PostgreSQL database; prints counts and balance totals of both sides (exit 1 if they differ)")
    .requiredOption("--from <file>", "the SQLite database file")
    .requiredOption("--to <url>", "the postgres:// URL")
    .option("--force", "replace what the target holds")
    .action(async (opts: { from: string; to: string; force?: boolean }, cmd: Command) => {
      if (!isPostgresUrl(opts.to)) throw new UsageError("--to must be a postgres:// or postgresql:// URL");
      requireFleetSecret(opts.to, process.env); // the target's secret: sealed values are sealed again with it
      const [{ copySqliteToPostgres }, { resealFor }] = await Promise.all([import("../../store/copy.js"), import("../reseal.js")]);
      const reseal = resealFor(opts.from, loadSecret(opts.to, process.env));
      const { from, to, resealed } = await copySqliteToPostgres(opts.from, opts.to, opts.force === true, reseal);
      const same = JSON.stringify(from.counts) === JSON.stringify(to.counts) && from.balance === to.balance && from.charged === to.charged;
      const side = (s: typeof from) => ({ counts: s.counts, balance: nanoToUsd(s.balance), charged: nanoToUsd(s.charged) });
      const lines = Object.keys(from.counts).map((t) => `${t.padEnd(14)} ${String(from.counts[t]).padStart(9)} ${String(to.counts[t]).padStart(9)}`);
      output(
        cmd,
        { ok: same, from: side(from), to: side(to), resealed: resealed.length },
        [
          `${"".padEnd(14)} ${"sqlite".padStart(9)} ${"postgres".padStart(9)}`,
          ...lines,
          `balances       ${nanoToUsd(from.balance)} / ${nanoToUsd(to.balance)} USD`,
          `charged        ${nanoToUsd(from.charged)} / ${nanoToUsd(to.charged)} USD`,
          `re-sealed      ${resealed.length ? `${sealedSummary(resealed)} under GATEWAY_SECRET` : "0 (no BYOK keys or webhook secrets)"}`,
          same ? "Copied: counts and totals match." : "MISMATCH: the copy differs from the source.",
        ].join("\n"),
      );
      if (!same) process.exitCode = 1;
    });
}

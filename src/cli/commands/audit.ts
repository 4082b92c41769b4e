/**
 * `gateway audit [--since DATE] [--account A] [--json]`: the audit log, oldest first;
 * `gateway audit verify`: walks the hash chain, exit 1 naming the first broken record (docs/audit.md).
 */
import type { Command } from "commander";
import { listAudit, verifyAudit } from "../../operations/audit-log.js";
import { existingAccount, output, table, withStore } from "./context.js";
import { parseSince } from "./parse.js";

type Row = Awaited<ReturnType<typeof listAudit>>[number];

const fields = (v: Record<string, unknown> | null) => (v === null ? "-" : JSON.stringify(v));

function human(rows: Row[]): string {
  if (rows.length === 0) return "No audit records.";
  const lines = rows.map((r) => [String(r.id), r.at, r.actor, r.ip ?? "-", r.action, r.target, `${fields(r.before)} -> ${fields(r.after)}`]);
  return `Times are UTC.\n${table([["ID", "AT", "ACTOR", "IP", "ACTION", "TARGET", "BEFORE -> AFTER"], ...lines])}`;
}

export function auditCommand(program: Command): void {
  const audit = program
    .command("audit")
    .description("every change made through the CLI, the dashboard or a config reload, oldest first")
    .option("--since <when>", "ISO date or a duration back from now (24h, 7d)")
    .option("--account <account>", "only this account's records")
    .action((opts: { since?: string; account?: string }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const since = opts.since ? parseSince(opts.since, Date.now()) : undefined;
        const account = opts.account ? await existingAccount(store, opts) : undefined;
        const rows = await listAudit(store, { since, account });
        output(cmd, rows, human(rows));
      }),
    );
  audit
    .command("verify")
    .description("check the hash chain: exit 1 naming the first record that was edited, deleted or inserted")
    .action((_opts: unknown, cmd: Command) =>
      withStore(cmd, async (store) => {
        const v = await verifyAudit(store);
        if (v.ok) return output(cmd, v, `Verified ${v.verified} audit record(s): the chain is intact.`);
        output(cmd, v, `Audit chain broken at record ${v.id}: ${v.problem}. ${v.verified} record(s) before it verified.`);
        process.exitCode = 1;
      }),
    );
}

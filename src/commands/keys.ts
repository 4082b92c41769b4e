/** `gateway keys create|list|update|revoke`: the full key is printed once; only its hash is stored. */
import type { Command } from "commander";
import { generateKey, hashKey, keyState, maskKey, newKeyId } from "../keys.js";
import type { BudgetPeriod } from "../budget.js";
import type { KeyRecord, Store } from "../store/index.js";
import { budgetView, checkBudgetFlags, withBudgetOptions } from "./key-budget.js";
import { keysUpdateCommand } from "./keys-update.js";
import { accountOf, ask, output, table, withStore } from "./context.js";
import { parseExpiry, positiveInt } from "./parse.js";

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

export async function view(store: Store, k: KeyRecord, now: number) {
  return {
    id: k.id, name: k.name, account: k.account, masked: maskKey(k.last4), state: keyState(k, now),
    created_at: iso(k.createdAt), expires_at: iso(k.expiresAt), last_used_at: iso(k.lastUsedAt), rpm: k.rpm, ...(await budgetView(store, k, now)),
  };
}

export function keysCommand(program: Command): void {
  const keys = program.command("keys").description("manage gateway API keys");

  withBudgetOptions(keys.command("create")
    .description("create a key and print it once"))
    .option("--name <name>", "a name to identify the key (unique; prompted for on a TTY)")
    .option("--account <account>", "account the key draws on", "default")
    .option("--expires <when>", "ISO date/time or a duration like 90s, 12h, 30d")
    .option("--rpm <n>", "requests per 60 s for this key", positiveInt)
    .action(async (opts: { name?: string; account?: string; expires?: string; rpm?: number; budget?: bigint; budgetPeriod?: BudgetPeriod }, cmd: Command) => {
      checkBudgetFlags(opts, false);
      const name = opts.name ?? (await ask("Key name"));
      await withStore(cmd, async (store) => {
        const now = Date.now();
        const account = accountOf(opts);
        const expiresAt = opts.expires ? parseExpiry(opts.expires, now) : null;
        if (await store.findKey(name)) throw new Error(`a key named '${name}' already exists`);
        const key = generateKey();
        const record: KeyRecord = {
          id: newKeyId(), name, account, hash: hashKey(key), last4: key.slice(-4),
          createdAt: now, expiresAt, revokedAt: null, lastUsedAt: null, rpm: opts.rpm ?? null,
          budget: opts.budget ?? null, budgetPeriod: opts.budgetPeriod ?? "total",
        };
        await store.ensureAccount(account, now);
        await store.createKey(record);
        output(cmd, { id: record.id, name: record.name, key, account, expires_at: iso(expiresAt), rpm: record.rpm, ...(await budgetView(store, record, now)) },
          `${key}\n\nKey '${record.name}' (${record.id}) for account '${account}'. It is shown only this once: store it now.`);
      });
    });

  keys.command("list")
    .description("list keys (masked)")
    .option("--account <account>", "only this account's keys")
    .action((opts: { account?: string }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const now = Date.now();
        const rows = await Promise.all((await store.listKeys(opts.account ? accountOf(opts) : undefined)).map((k) => view(store, k, now)));
        output(cmd, rows, rows.length === 0 ? "No keys." : table([
          ["ID", "NAME", "ACCOUNT", "KEY", "STATE", "CREATED", "EXPIRES", "LAST USED", "BUDGET", "PERIOD", "SPENT"],
          ...rows.map((r) => [r.id, r.name, r.account, r.masked, r.state, r.created_at ?? "", r.expires_at ?? "-", r.last_used_at ?? "-",
            r.budget === null ? "-" : `$${r.budget}`, r.budget_period, `$${r.spent}`]),
        ]));
      }),
    );

  keys.command("revoke")
    .description("revoke a key by id or name (a running server rejects it within 1 s)")
    .argument("<id|name>")
    .action((idOrName: string, _opts: unknown, cmd: Command) =>
      withStore(cmd, async (store) => {
        const key = await store.findKey(idOrName);
        if (!key) throw new Error(`no key with id or name '${idOrName}'`);
        const now = Date.now();
        if (key.revokedAt === null) await store.revokeKey(key.id, now);
        const revoked = (await store.findKey(key.id))!;
        output(cmd, await view(store, revoked, now), `Revoked key '${key.name}' (${key.id}).`);
      }),
    );

  keysUpdateCommand(keys);
}

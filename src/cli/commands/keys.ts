/** `gateway keys create|list|update|revoke`: the full key is printed once; only its hash is stored. */
import type { Command } from "commander";
import type { BudgetPeriod } from "../../core/budget-periods.js";
import { createKey } from "../../operations/create-key.js";
import { listKeys } from "../../operations/list-keys.js";
import { revokeKey } from "../../operations/revoke-key.js";
import { checkBudgetFlags, withBudgetOptions } from "./key-budget.js";
import { keysUpdateCommand } from "./keys-update.js";
import { parseGrantList } from "../../mcp/grants.js";
import { cacheModeOf, withCacheOptions, type CacheFlags } from "./key-cache.js";
import { withGuardrailsOption, type GuardrailsFlags } from "./key-guardrails.js";
import { accountOf, ask, cliBy, existingAccount, output, table, withStore } from "./context.js";
import { parseExpiry, positiveInt } from "./parse.js";

interface NewKeyOptions extends CacheFlags, GuardrailsFlags {
  name?: string;
  account?: string;
  create?: boolean;
  expires?: string;
  rpm?: number;
  budget?: bigint;
  budgetPeriod?: BudgetPeriod;
  mcp?: string | false;
}

export function keysCommand(program: Command): void {
  const keys = program.command("keys").description("manage gateway API keys");

  withGuardrailsOption(withCacheOptions(withBudgetOptions(keys.command("create").description("create a key and print it once")), false))
    .option("--name <name>", "a name to identify the key (unique in its account; prompted for on a TTY)")
    .option("--account <account>", "account the key draws on", "default")
    .option("--create", "create the account if it does not exist (else a typo is refused)")
    .option("--expires <when>", "ISO date/time or a duration like 90s, 12h, 30d")
    .option("--rpm <n>", "requests per 60 s for this key", positiveInt)
    .option("--mcp <grants>", 'the MCP tools it may call: "<server>:<tool glob>,..." (github:*, fs:read_*); none without it')
    .option("--no-mcp", "no MCP tool (the default)")
    .action(async (opts: NewKeyOptions, cmd: Command) => {
      checkBudgetFlags(opts, false);
      const mcp = typeof opts.mcp === "string" ? parseGrantList(opts.mcp) : null;
      const name = opts.name ?? (await ask("Key name"));
      await withStore(cmd, async (store) => {
        const now = Date.now();
        const account = await existingAccount(store, opts, true);
        const expiresAt = opts.expires ? parseExpiry(opts.expires, now) : null;
        const created = await createKey(
          store,
          {
            name,
            account,
            expiresAt,
            rpm: opts.rpm ?? null,
            budget: opts.budget ?? null,
            budgetPeriod: opts.budgetPeriod,
            cache: cacheModeOf(opts),
            guardrails: opts.guardrails,
            mcp,
          },
          now,
          cliBy(),
        );
        const { key, id } = created;
        output(cmd, created, `${key}\n\nKey '${name}' (${id}) for account '${account}'. It is shown only this once: store it now.`);
      });
    });

  keys
    .command("list")
    .description("list keys (masked)")
    .option("--account <account>", "only this account's keys")
    .action((opts: { account?: string }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const rows = await listKeys(store, opts.account ? await existingAccount(store, opts) : undefined, Date.now());
        output(
          cmd,
          rows,
          rows.length === 0
            ? "No keys."
            : table([
                ["ID", "NAME", "ACCOUNT", "KEY", "STATE", "CREATED", "EXPIRES", "LAST USED", "BUDGET", "PERIOD", "SPENT"],
                ...rows.map((r) => [
                  r.id,
                  r.name,
                  r.account,
                  r.masked,
                  r.state,
                  r.created_at ?? "",
                  r.expires_at ?? "-",
                  r.last_used_at ?? "-",
                  r.budget === null ? "-" : `$${r.budget}`,
                  r.budget_period,
                  `$${r.spent}`,
                ]),
              ]),
        );
      }),
    );

  keys
    .command("revoke")
    .description("revoke a key by id or name (a running server rejects it within 1 s)")
    .argument("<id|name>")
    .option("--account <account>", "the account whose key it is (needed for a name several accounts use)")
    .action((idOrName: string, opts: { account?: string }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const revoked = await revokeKey(store, idOrName, opts.account && accountOf(opts), Date.now(), cliBy());
        output(cmd, revoked, `Revoked key '${revoked.name}' (${revoked.id}).`);
      }),
    );

  keysUpdateCommand(keys);
}

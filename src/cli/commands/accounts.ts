/** `gateway accounts list`: every account with its balance, active keys and spend (exact USD strings). */
import type { Command } from "commander";
import { listAccounts } from "../../operations/list-accounts.js";
import { output, table, withStore } from "./context.js";

export function accountsCommand(program: Command): void {
  const accounts = program.command("accounts").description("the accounts keys draw on");
  accounts
    .command("list")
    .description("every account: balance, active keys, spend (USD)")
    .action((_opts: unknown, cmd: Command) =>
      withStore(cmd, async (store) => {
        const rows = await listAccounts(store);
        output(
          cmd,
          rows,
          rows.length === 0
            ? "No accounts (gateway keys create makes the first one)."
            : table([
                ["ACCOUNT", "BALANCE $", "KEYS", "SPEND $", "CREATED"],
                ...rows.map((r) => [r.id, r.balance, String(r.keys), r.spend, r.created_at.slice(0, 10)]),
              ]),
        );
      }),
    );
}

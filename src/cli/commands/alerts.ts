/** `gateway alerts add|list|remove|thresholds|deliveries`: budget and balance alerts to webhooks (docs/alerts.md). */
import type { Command } from "commander";
import { loadSecret } from "../../access/byok.js";
import { sealWebhookSecret } from "../../alerts/secret.js";
import { firedText, listDeliveries } from "../../operations/alert-deliveries.js";
import { setAlertSettings, showAlertSettings } from "../../operations/alert-settings.js";
import { addWebhook, listWebhooks, removeWebhook } from "../../operations/alert-webhooks.js";
import { cliBy, existingAccount, output, table, withStore } from "./context.js";

export function alertsCommand(program: Command): void {
  const alerts = program.command("alerts").description("budget-threshold and low-balance alerts, delivered to webhooks");

  alerts
    .command("add")
    .description("send alerts to a webhook URL (signed with --secret, or a generated one printed once)")
    .requiredOption("--url <url>", "the receiver (http or https; loopback and private addresses are allowed)")
    .option("--secret <secret>", "the signing secret (at least 16 characters); default: generated")
    .option("--account <account>", "only this account's alerts (default: every account's)")
    .action((opts: { url: string; secret?: string; account?: string }, cmd: Command) =>
      withStore(cmd, async (store, loaded) => {
        const account = opts.account === undefined ? null : await existingAccount(store, opts);
        const secret = loadSecret(loaded.config.database, process.env);
        const added = await addWebhook(
          store,
          (id, plain) => sealWebhookSecret(secret, id, plain),
          { url: opts.url, secret: opts.secret, account },
          Date.now(),
          cliBy(),
        );
        const whose = account === null ? "every account's alerts" : `the alerts of '${account}'`;
        const shown = added.secret ? `\nSigning secret (shown once; verify X-Gateway-Signature with it): ${added.secret}` : "";
        output(cmd, added, `Added webhook ${added.id}: ${whose} go to ${added.url}.${shown}`);
      }),
    );

  alerts
    .command("list")
    .description("list the webhooks (never their secrets)")
    .action((_opts: unknown, cmd: Command) =>
      withStore(cmd, async (store) => {
        const rows = await listWebhooks(store);
        const lines = [["ID", "ACCOUNT", "URL", "CREATED"], ...rows.map((r) => [r.id, r.account ?? "(every account)", r.url, r.created_at])];
        output(cmd, rows, rows.length === 0 ? "No alert webhooks." : table(lines));
      }),
    );

  alerts
    .command("remove")
    .description("remove a webhook (its pending deliveries end failed; the delivery log keeps them)")
    .argument("<id>")
    .action((id: string, _opts: unknown, cmd: Command) =>
      withStore(cmd, async (store) => output(cmd, await removeWebhook(store, id, Date.now(), cliBy()), `Removed webhook ${id}.`)),
    );

  alerts
    .command("thresholds")
    .description("show or set an account's alert thresholds: percentages of each budget, and a low-balance amount")
    .option("--account <account>", "account", "default")
    .option("--percent <list>", "percentages of a budget that alert, e.g. 50,80,100 (the default)")
    .option("--low-balance <usd>", "alert when the balance falls below this amount (USD)")
    .option("--no-low-balance", "no low-balance alert")
    .action((opts: { account?: string; percent?: string; lowBalance?: string | boolean }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const account = await existingAccount(store, opts);
        // commander: --no-low-balance sets false; the flag left out leaves it true (the default of a negatable option).
        const lowBalance = opts.lowBalance === false ? null : typeof opts.lowBalance === "string" ? opts.lowBalance : undefined;
        const changing = opts.percent !== undefined || lowBalance !== undefined;
        const s = changing
          ? await setAlertSettings(store, account, { percents: opts.percent, lowBalance }, Date.now(), cliBy())
          : await showAlertSettings(store, account);
        const low = s.low_balance === null ? "no low-balance alert" : `low balance below ${s.low_balance} USD`;
        output(cmd, s, `'${account}': alerts at ${s.percents.join("%, ")}% of each budget; ${low}.`);
      }),
    );

  alerts
    .command("deliveries")
    .description("the delivery log, newest first")
    .option("--account <account>", "only this account's")
    .option("--limit <n>", "at most this many", "100")
    .action((opts: { account?: string; limit: string }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const account = opts.account === undefined ? undefined : await existingAccount(store, opts);
        const rows = await listDeliveries(store, { account, limit: Math.max(1, Math.min(10_000, Number(opts.limit) || 100)) });
        const lines = [
          ["ID", "TYPE", "FIRED", "STATUS", "ATTEMPTS", "LAST", "CREATED", "DELIVERED", "URL"],
          ...rows.map((r) => [
            r.id,
            r.type,
            firedText(r),
            r.status,
            String(r.attempts),
            String(r.last_status ?? "-"),
            r.created_at ?? "",
            r.delivered_at ?? "-",
            r.url,
          ]),
        ];
        output(cmd, rows, rows.length === 0 ? "No alert deliveries." : table(lines));
      }),
    );
}

/** `gateway byok set|list|remove`: an account's own provider keys, encrypted at rest. */
import type { Command } from "commander";
import { encrypt, loadSecret } from "../../access/byok.js";
import { UsageError } from "../../core/errors.js";
import { byokProviderNames } from "../../operations/byok-provider.js";
import { listByok, removeByok, setByok } from "../../operations/byok-keys.js";
import { accountOf, ask, cliBy, existingAccount, output, table, withStore } from "./context.js";

/** One of the providers whose plugin says it takes an account's own key (docs/billing.md); another is bad usage (exit 2). */
async function providerArg(value: string): Promise<string> {
  const names = await byokProviderNames();
  if (!names.includes(value)) throw new UsageError(`unknown provider '${value}': expected one of ${names.join(", ")}`);
  return value;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").trim();
}

export function byokCommand(program: Command): void {
  const byok = program.command("byok").description("manage accounts' own provider keys (BYOK)");

  byok
    .command("set")
    .description("store a provider key for an account (prefer --key-stdin: keeps it out of shell history)")
    .argument("<provider>")
    .option("--key <key>", "the provider key")
    .option("--key-stdin", "read the key from standard input")
    .option("--account <account>", "account", "default")
    .action(async (provider: string, opts: { key?: string; keyStdin?: boolean; account?: string }, cmd: Command) => {
      await providerArg(provider);
      const account = accountOf(opts);
      const key = opts.keyStdin ? await readStdin() : (opts.key ?? (await ask("Provider key", "--key or --key-stdin")));
      if (!key) throw new UsageError("the key is empty");
      await withStore(cmd, async (store, loaded) => {
        await existingAccount(store, opts);
        const secret = loadSecret(loaded.config.database, process.env);
        const stored = await setByok(store, (a, p, k) => encrypt(secret, a, p, k), account, provider, key, Date.now(), cliBy());
        output(cmd, stored, `Stored the ${provider} key ${stored.masked} for '${account}'.`);
      });
    });

  byok
    .command("list")
    .description("list an account's provider keys (masked)")
    .option("--account <account>", "account", "default")
    .action((opts: { account?: string }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const account = await existingAccount(store, opts);
        const rows = await listByok(store, account);
        output(
          cmd,
          rows,
          rows.length === 0
            ? `No BYOK keys for '${account}'.`
            : table([["PROVIDER", "KEY", "UPDATED"], ...rows.map((r) => [r.provider, r.masked, r.updated_at])]),
        );
      }),
    );

  byok
    .command("remove")
    .description("remove an account's key for a provider")
    .argument("<provider>")
    .option("--account <account>", "account", "default")
    .action(async (provider: string, opts: { account?: string }, cmd: Command) => {
      await providerArg(provider);
      const account = accountOf(opts);
      return withStore(cmd, async (store) => {
        await existingAccount(store, opts);
        output(cmd, await removeByok(store, account, provider, Date.now(), cliBy()), `Removed the ${provider} key of '${account}'.`);
      });
    });
}

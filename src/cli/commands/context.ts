/** What every command shares: global options, the config, the store, and output. */
import { userInfo } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { loadConfig, type LoadedConfig } from "../../config/load.js";
import { UsageError } from "../../core/errors.js";
import type { Store } from "../../store/index.js";
import { requireFleetSecret } from "../../access/byok.js";
import { openStore } from "../../store/open.js";
import { isUrl } from "../../core/database-url.js";
import { accountMustExist } from "../../operations/account-exists.js";

export interface GlobalOptions {
  config?: string;
  db?: string;
  json?: boolean;
}

export const globals = (cmd: Command): GlobalOptions => cmd.optsWithGlobals<GlobalOptions>();

/** The config, with `--db` / GATEWAY_DB taking precedence over its `database`. */
export async function configFor(cmd: Command): Promise<LoadedConfig> {
  const g = globals(cmd);
  const loaded = await loadConfig(g.config);
  const db = g.db ?? process.env.GATEWAY_DB;
  if (db) loaded.config.database = isUrl(db) ? db : resolve(db);
  return loaded;
}

export async function withStore<T>(cmd: Command, fn: (store: Store, loaded: LoadedConfig) => T | Promise<T>): Promise<T> {
  const loaded = await configFor(cmd);
  requireFleetSecret(loaded.config.database, process.env);
  const store = await openStore(loaded.config.database, { ...loaded.config.fleet, leaseRequests: 0 }); // the CLI admits no requests: no leases
  try {
    return await fn(store, loaded);
  } finally {
    await store.close();
  }
}

/** `--json` prints the value alone; otherwise the human text. */
export function output(cmd: Command, value: unknown, human: string): void {
  process.stdout.write(globals(cmd).json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
}

export const canPrompt = (): boolean => Boolean(process.stdin.isTTY && process.stdout.isTTY) && !process.env.CI;

/** Asks on a TTY; without one, the value had to come from a flag (bad usage, exit 2). */
export async function ask(label: string, flag = `--${label.toLowerCase().split(" ").pop()}`): Promise<string> {
  if (!canPrompt()) throw new UsageError(`${flag} is required when not running interactively`);
  const { input } = await import("@inquirer/prompts");
  return input({ message: `${label}:`, required: true });
}

export const accountOf = (opts: { account?: string }): string => {
  const account = opts.account ?? "default";
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(account)) throw new UsageError(`invalid account name '${account}': use letters, digits, '.', '_' or '-'`);
  return account;
};

/** `--account` of a command that reads or writes it: a name the store knows, unless `--create` (docs/cli.md "Accounts"). */
export async function existingAccount(store: Store, opts: { account?: string; create?: boolean }, creatable = false): Promise<string> {
  const account = accountOf(opts);
  if (!opts.create) await accountMustExist(store, account, creatable);
  return account;
}

/** Who a command acts as, kept with credits it adds or adjusts (`credits history`). */
function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    // No passwd entry for this uid (some containers): the environment's name, if any.
    return `cli:${process.env.USER ?? process.env.LOGNAME ?? "unknown"}`;
  }
}

/** Who a CLI change is recorded as in the audit log (docs/audit.md): the OS user, no address. */
export const cliBy = (): { actor: string; ip: null } => ({ actor: cliActor(), ip: null });

/** A plain table for humans: columns padded to their widest cell. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return "";
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/**
 * `gateway users add|reset|list|remove`: who may sign in to the dashboard (docs/dashboard.md).
 * `add` and `reset` print a one-time sign-in link, valid 24 h, where the user chooses a password.
 */
import type { Command } from "commander";
import type { Config } from "../../config/config.js";
import { UsageError } from "../../core/errors.js";
import type { Role } from "../../core/roles.js";
import { listUsers, normalizeEmail, removeUser, resetUser } from "../../operations/dashboard-users.js";
import { addUserOrMember, roleOf } from "../../operations/members.js";
import { accountOf, cliBy, existingAccount, output, table, withStore } from "./context.js";

/** Where the links point: `dashboard.url`, else the address `gateway serve` listens on. */
function dashboardBase(config: Config): string {
  if (config.dashboard.url) return config.dashboard.url;
  const { host, port } = config.server;
  const shown = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** A malformed email is bad usage (exit 2), not a failed operation. */
export function emailArg(email: string): string {
  try {
    return normalizeEmail(email);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

const linkText = (r: { email: string; link: string; expires_at: string }) =>
  `${r.link}\n\nSign-in link for '${r.email}', valid until ${r.expires_at} and usable once: send it to them.`;

/**
 * A new user gets a link; an existing one joined another account and signs in as before, unless
 * another account's invitation set their password: then the membership waits for the new link
 * (docs/dashboard.md "Invitations").
 */
const addedText = (r: { email: string; account: string; role: string; pending?: boolean; link: string | null; expires_at: string | null }) => {
  if (r.link === null || r.expires_at === null)
    return `Added the existing user '${r.email}' to '${r.account}' as ${r.role}; they sign in with their current password.`;
  const link = linkText({ email: r.email, link: r.link, expires_at: r.expires_at });
  if (!r.pending) return link;
  return `${link}\n'${r.email}' was added by another account's owner, whose sign-in link set (or would set) their password: it does not open '${r.account}'. Give this link to the person who owns the address; the password they choose with it replaces that one and opens '${r.account}' too.`;
};

/** A role name, or bad usage (exit 2). */
export function roleArg(role: string): Role {
  try {
    return roleOf(role);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function usersCommand(program: Command): void {
  const users = program.command("users").description("manage dashboard users");

  users
    .command("add")
    .description("create a dashboard user and print a one-time sign-in link (valid 24 h)")
    .argument("<email>")
    .option("--account <account>", "the account the user manages", "default")
    .option("--create", "create the account if it does not exist (else a typo is refused)")
    .option("--role <role>", "their role in the account: owner, admin, member or viewer", "owner")
    .option("--admin", "an instance administrator: sees every account and can add credits")
    .action((email: string, opts: { account?: string; create?: boolean; admin?: boolean; role: string }, cmd: Command) => {
      const account = accountOf(opts);
      const role = roleArg(opts.role);
      emailArg(email);
      return withStore(cmd, async (store, loaded) => {
        await existingAccount(store, opts, true);
        const r = await addUserOrMember(store, { email, account, admin: Boolean(opts.admin), role }, dashboardBase(loaded.config), Date.now(), cliBy());
        output(cmd, r, addedText(r));
      });
    });

  users
    .command("reset")
    .description("print a new sign-in link for a user (the old password works until it is used)")
    .argument("<email>")
    .action((email: string, _opts: unknown, cmd: Command) =>
      withStore(cmd, async (store, loaded) => {
        const r = await resetUser(store, email, dashboardBase(loaded.config), Date.now(), cliBy());
        output(cmd, r, linkText(r));
      }),
    );

  users
    .command("list")
    .description("list dashboard users")
    .action((_opts: unknown, cmd: Command) =>
      withStore(cmd, async (store) => {
        const rows = await listUsers(store);
        output(
          cmd,
          rows,
          rows.length === 0
            ? "No dashboard users (gateway users add <email> --account A)."
            : table([
                ["EMAIL", "ACCOUNT", "ADMIN", "PASSWORD", "VOUCHED BY", "CREATED"],
                ...rows.map((r) => [
                  r.email,
                  r.account,
                  r.admin ? "yes" : "no",
                  r.password_set ? "set" : "not yet",
                  r.vouched_by === null ? "operator" : `owner of ${r.vouched_by}`,
                  r.created_at,
                ]),
              ]),
        );
      }),
    );

  users
    .command("remove")
    .description("remove a dashboard user and end their sessions")
    .argument("<email>")
    .action((email: string, _opts: unknown, cmd: Command) =>
      withStore(cmd, async (store) => {
        output(cmd, await removeUser(store, email, Date.now(), cliBy()), `Removed dashboard user '${email}'.`);
      }),
    );
}

/**
 * `gateway members list|set-role|remove --account A`: who belongs to an account and with which
 * role (docs/dashboard.md, "Members and roles"). Adding someone is `gateway users add --role`.
 */
import type { Command } from "commander";
import { listMembers, removeMember, setMemberRole } from "../../operations/members.js";
import { cliBy, existingAccount, output, table, withStore } from "./context.js";
import { emailArg, roleArg } from "./users.js";

type AccountOpts = { account?: string };

export function membersCommand(program: Command): void {
  const members = program.command("members").description("list an account's members, change their roles, remove them");

  members
    .command("list")
    .description("list the account's members and their roles")
    .option("--account <account>", "the account", "default")
    .action((opts: AccountOpts, cmd: Command) =>
      withStore(cmd, async (store) => {
        const account = await existingAccount(store, opts);
        const rows = await listMembers(store, account);
        output(
          cmd,
          rows,
          rows.length === 0
            ? `No members in '${account}' (gateway users add <email> --account ${account} --role R).`
            : table([["EMAIL", "ROLE", "SINCE", "STATE"], ...rows.map((r) => [r.email, r.role, r.created_at, r.pending ? "pending" : "active"])]),
        );
      }),
    );

  members
    .command("set-role")
    .description("change a member's role (owner, admin, member, viewer); the last owner cannot be demoted")
    .argument("<email>")
    .argument("<role>")
    .option("--account <account>", "the account", "default")
    .action((email: string, role: string, opts: AccountOpts, cmd: Command) => {
      const r = roleArg(role);
      emailArg(email);
      return withStore(cmd, async (store) => {
        const account = await existingAccount(store, opts);
        const m = await setMemberRole(store, email, account, r, Date.now(), cliBy());
        output(cmd, m, `'${m.email}' is now ${m.role} of '${account}'.`);
      });
    });

  members
    .command("remove")
    .description("remove a member from the account (the user and their keys stay); the last owner cannot be removed")
    .argument("<email>")
    .option("--account <account>", "the account", "default")
    .action((email: string, opts: AccountOpts, cmd: Command) => {
      emailArg(email);
      return withStore(cmd, async (store) => {
        const account = await existingAccount(store, opts);
        const m = await removeMember(store, email, account, Date.now(), cliBy());
        output(cmd, m, `Removed '${m.email}' from '${account}'.`);
      });
    });
}

/** `gateway mcp add|remove|list|tools|grant|revoke|grants`: upstream MCP servers and what accounts may grant (docs/mcp.md). */
import type { Command } from "commander";
import { loadSecret } from "../../access/byok.js";
import { addMcpServer, listMcpServers, listMcpTools, removeMcpServer } from "../../operations/mcp-servers.js";
import { grantMcp, listMcpGrants, revokeMcp } from "../../operations/mcp-grants.js";
import { cliBy, existingAccount, output, table, withStore } from "./context.js";
import { positiveInt } from "./parse.js";

interface AddOptions {
  url: string;
  header: string[];
  tools?: string;
  timeout?: number;
  price?: string;
}

const collect = (value: string, all: string[]) => [...all, value];

export function mcpCommand(program: Command): void {
  const mcp = program.command("mcp").description("manage upstream MCP servers and who may call their tools");

  mcp
    .command("add")
    .description("add (or replace) a Streamable HTTP server; its headers are encrypted at rest")
    .argument("<name>")
    .requiredOption("--url <url>", "the server's MCP endpoint")
    .option("--header <line>", '"Name: value", repeatable (e.g. "Authorization: Bearer ...")', collect, [])
    .option("--tools <globs>", "only these tools are exposed at all: comma-separated globs")
    .option("--timeout <ms>", "a call's cap in ms (default 60000)", positiveInt)
    .option("--price <usd>", "USD per call, held and charged like a model request")
    .action((name: string, opts: AddOptions, cmd: Command) =>
      withStore(cmd, async (store, loaded) => {
        const server = {
          name,
          url: opts.url,
          headers: opts.header,
          tools: opts.tools?.split(",").map((t) => t.trim()),
          timeoutMs: opts.timeout,
          pricePerCall: opts.price,
        };
        const secret = loadSecret(loaded.config.database, process.env);
        const added = await addMcpServer(store, { config: loaded.config, secret, server, now: Date.now(), by: cliBy() });
        output(cmd, added, `MCP server '${name}' at ${added.url}${added.header_names.length ? ` (headers: ${added.header_names.join(", ")})` : ""}.`);
      }),
    );

  mcp
    .command("remove")
    .description("remove a server added with mcp add (grants naming it stay, and grant nothing while it is gone)")
    .argument("<name>")
    .action((name: string, _opts: unknown, cmd: Command) =>
      withStore(cmd, async (store, loaded) =>
        output(cmd, await removeMcpServer(store, loaded.config, name, Date.now(), cliBy()), `Removed MCP server '${name}'.`),
      ),
    );

  mcp
    .command("list")
    .description("every server, connected now: status, tool count, last error")
    .action((_opts: unknown, cmd: Command) =>
      withStore(cmd, async (store, loaded) => {
        const rows = await listMcpServers(store, loaded.config, loadSecret(loaded.config.database, process.env));
        const human = rows.length
          ? table([
              ["NAME", "TRANSPORT", "STATUS", "TOOLS", "LAST ERROR"],
              ...rows.map((r) => [r.name, r.transport, r.status, String(r.tools ?? "-"), r.last_error ?? "-"]),
            ])
          : "No MCP servers (config mcp.servers, or gateway mcp add).";
        output(cmd, rows, human);
      }),
    );

  mcp
    .command("tools")
    .description("the tools each server lists")
    .option("--server <name>", "one server's only")
    .action((opts: { server?: string }, cmd: Command) =>
      withStore(cmd, async (store, loaded) => {
        const rows = await listMcpTools(store, loaded.config, loadSecret(loaded.config.database, process.env), opts.server);
        output(
          cmd,
          rows,
          rows.length ? table([["SERVER", "TOOL", "DESCRIPTION"], ...rows.map((r) => [r.server, r.name, r.description.slice(0, 60)])]) : "No tools.",
        );
      }),
    );

  grantCommands(mcp);
}

function grantCommands(mcp: Command): void {
  mcp
    .command("grant")
    .description("let an account's keys be granted <server>[:<tool glob>] (none set: every server)")
    .argument("<server[:glob]>")
    .option("--account <account>", "account", "default")
    .action((entry: string, opts: { account?: string }, cmd: Command) =>
      withStore(cmd, async (store, loaded) => {
        const account = await existingAccount(store, opts);
        const g = await grantMcp(store, { config: loaded.config, account, entry, now: Date.now(), by: cliBy() });
        output(cmd, g, g.added ? `Account '${account}' may grant ${g.server}:${g.tools}.` : `Account '${account}' could already grant ${g.server}:${g.tools}.`);
      }),
    );

  mcp
    .command("revoke")
    .description("remove one of an account's grants")
    .argument("<server[:glob]>")
    .option("--account <account>", "account", "default")
    .action((entry: string, opts: { account?: string }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const account = await existingAccount(store, opts);
        const r = await revokeMcp(store, { account, entry, now: Date.now(), by: cliBy() });
        output(cmd, r, `Account '${account}' may no longer grant ${r.server}:${r.tools}.`);
      }),
    );

  mcp
    .command("grants")
    .description("what accounts let their keys be granted")
    .option("--account <account>", "one account's")
    .action((opts: { account?: string }, cmd: Command) =>
      withStore(cmd, async (store) => {
        const rows = await listMcpGrants(store, opts.account ? await existingAccount(store, opts) : undefined);
        const human = rows.length
          ? table([["ACCOUNT", "SERVER", "TOOLS", "SINCE"], ...rows.map((r) => [r.account, r.server, r.tools, r.created_at])])
          : "No account narrows its keys' MCP grants: each key may be granted any configured server.";
        output(cmd, rows, human);
      }),
    );
}

/**
 * The `gateway` CLI. Every command is scriptable: `--json` prints only JSON on stdout,
 * errors are one line on stderr, exit 0 success, 1 failure, 2 bad usage, and nothing
 * prompts unless stdin and stdout are a TTY.
 */
import { Command, CommanderError } from "commander";
import { accountsCommand } from "./commands/accounts.js";
import { budgetsCommand } from "./commands/budgets.js";
import { alertsCommand } from "./commands/alerts.js";
import { auditCommand } from "./commands/audit.js";
import { byokCommand } from "./commands/byok.js";
import { creditsCommand } from "./commands/credits.js";
import { dbCommand } from "./commands/db.js";
import { doctorCommand } from "./commands/doctor.js";
import { initCommand } from "./commands/init.js";
import { keysCommand } from "./commands/keys.js";
import { modelsCommand } from "./commands/models.js";
import { serveCommand } from "./commands/serve.js";
import { usageCommand } from "./commands/usage.js";
import { membersCommand } from "./commands/members.js";
import { usersCommand } from "./commands/users.js";
import { UsageError } from "../core/errors.js";
import { startupDone } from "./heap.js";

function buildProgram(): Command {
  const program = new Command("gateway")
    .description("Self-hosted OpenAI-compatible LLM gateway")
    .version("0.1.0", "-v, --version")
    .option("-c, --config <file>", "config file (default: search for gateway.config.yaml)")
    .option("--db <file|url>", "SQLite file or postgres:// URL (default: config `database`, GATEWAY_DB, ./gateway.db)")
    .option("--json", "machine-readable JSON on stdout")
    .showHelpAfterError("(run gateway --help for usage)")
    .exitOverride()
    // serve holds the young generation until it is ready (cli/heap.ts); every other command frees it now.
    .hook("preAction", (_program, action) => void (action.name() !== "serve" && startupDone()));
  for (const add of [
    initCommand,
    serveCommand,
    keysCommand,
    creditsCommand,
    byokCommand,
    modelsCommand,
    usageCommand,
    dbCommand,
    doctorCommand,
    accountsCommand,
    usersCommand,
    budgetsCommand,
    membersCommand,
    alertsCommand,
    auditCommand,
  ])
    add(program);
  for (const c of program.commands) {
    c.exitOverride();
    for (const sub of c.commands) sub.exitOverride();
  }
  return program;
}

/** Runs argv; returns the exit code instead of exiting, so tests can call it in-process. */
async function run(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: "user" });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") return 0;
      return 2; // commander already printed the message
    }
    if ((err as Error).name === "ExitPromptError") return 130;
    process.stderr.write(`error: ${(err as Error).message}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}

/** Runs argv and sets the exit code (the process entry is cli/main.ts). */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const code = await run(argv);
  // `serve` keeps running on its own; every other command ends here.
  if (code !== 0 || process.exitCode === undefined) process.exitCode = code;
}

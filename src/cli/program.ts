/**
 * The `gateway` CLI. Every command is scriptable: `--json` prints only JSON on stdout,
 * errors are one line on stderr, exit 0 success, 1 failure, 2 bad usage, and nothing
 * prompts unless stdin and stdout are a TTY.
 */
import { Command, CommanderError } from "commander";
import { UsageError } from "../core/errors.js";
import { startupDone } from "./heap.js";

type AddCommand = (program: Command) => void;

/**
 * Each command's module, loaded only when argv names it (all of them for help or an unknown
 * word): `serve` then loads none of the other commands' ~25 modules before it is ready.
 */
const COMMANDS: Record<string, () => Promise<AddCommand>> = {
  init: async () => (await import("./commands/init.js")).initCommand,
  serve: async () => (await import("./commands/serve.js")).serveCommand,
  keys: async () => (await import("./commands/keys.js")).keysCommand,
  credits: async () => (await import("./commands/credits.js")).creditsCommand,
  byok: async () => (await import("./commands/byok.js")).byokCommand,
  models: async () => (await import("./commands/models.js")).modelsCommand,
  usage: async () => (await import("./commands/usage.js")).usageCommand,
  db: async () => (await import("./commands/db.js")).dbCommand,
  doctor: async () => (await import("./commands/doctor.js")).doctorCommand,
  accounts: async () => (await import("./commands/accounts.js")).accountsCommand,
  users: async () => (await import("./commands/users.js")).usersCommand,
  budgets: async () => (await import("./commands/budgets.js")).budgetsCommand,
  members: async () => (await import("./commands/members.js")).membersCommand,
  alerts: async () => (await import("./commands/alerts.js")).alertsCommand,
  audit: async () => (await import("./commands/audit.js")).auditCommand,
  mcp: async () => (await import("./commands/mcp.js")).mcpCommand,
};

/** The global options that take a value (their value is not the command's name). */
const VALUED = new Set(["-c", "--config", "--db"]);

/** The command argv names, or undefined (help, version, an unknown word): then every command loads. */
function commandOf(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (VALUED.has(a)) i++;
    else if (!a.startsWith("-")) return Object.hasOwn(COMMANDS, a) ? a : undefined;
  }
  return undefined;
}

async function commandsFor(argv: string[]): Promise<AddCommand[]> {
  const one = commandOf(argv);
  return Promise.all((one ? [one] : Object.keys(COMMANDS)).map((name) => COMMANDS[name]!()));
}

function buildProgram(adds: AddCommand[]): Command {
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
  for (const add of adds) add(program);
  for (const c of program.commands) {
    c.exitOverride();
    for (const sub of c.commands) sub.exitOverride();
  }
  return program;
}

/** Runs argv; returns the exit code instead of exiting, so tests can call it in-process. */
async function run(argv: string[]): Promise<number> {
  try {
    await buildProgram(await commandsFor(argv)).parseAsync(argv, { from: "user" });
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

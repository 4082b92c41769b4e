/**
 * `gateway init`: writes gateway.config.yaml with the providers' keys (or the variables that
 * hold them) and base URLs, each key checked live (docs/cli.md). On a TTY it asks; with
 * `--yes` it takes `--provider` flags (or every provider whose key variable is set) and the
 * keys from the environment. A file holding a key itself is written 0600.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { UsageError } from "../../core/errors.js";
import {
  checkEntry,
  checkLine,
  entryFor,
  envHasKey,
  envReference,
  holdsLiteralKey,
  keyedPlugins,
  LOCAL,
  LOCAL_URL,
  type ProviderEntry,
} from "../init-setup.js";
import { canPrompt, output } from "./context.js";
import { positiveIntOrZero } from "./parse.js";
import { selfCommand } from "../self-command.js";

const COMPAT_MODES = ["openai", "strict", "passthrough"];

interface InitOptions {
  yes?: boolean;
  force?: boolean;
  file: string;
  compat?: string;
  provider?: string[];
  baseUrl?: string[];
  check: boolean;
  port?: number;
}

const collect = (value: string, prior: string[] = []) => [...prior, value];

async function askCompat(): Promise<string> {
  const { select } = await import("@inquirer/prompts");
  return select({
    message: "Requests accepted:",
    default: "openai",
    choices: [
      { value: "openai", name: "openai: the OpenAI request superset (tools, response_format, images), translated for every provider" },
      { value: "strict", name: "strict: exactly the gateway spec's fields; anything else is a 400" },
      { value: "passthrough", name: "passthrough: the superset, and unknown fields are dropped instead of refused" },
    ],
  });
}

/** `--base-url URL` (one provider) or `--base-url provider=URL`. */
function baseUrls(values: string[], providers: string[]): Map<string, string> {
  const urls = new Map<string, string>();
  for (const v of values) {
    const m = /^([a-z0-9-]+)=(.+)$/.exec(v);
    if (!m && providers.length !== 1) throw new UsageError("--base-url: with several providers write --base-url <provider>=<url>");
    const [provider, url] = m ? [m[1]!, m[2]!] : [providers[0]!, v];
    if (!providers.includes(provider)) throw new UsageError(`--base-url: ${provider} is not among the chosen providers (${providers.join(", ") || "none"})`);
    if (!URL.canParse(url)) throw new UsageError(`--base-url: '${url}' is not a URL`);
    urls.set(provider, url);
  }
  return urls;
}

/** --yes: keys from the environment; a chosen provider whose variable is unset is bad usage (nothing written). */
async function fromFlags(opts: InitOptions, env: NodeJS.ProcessEnv): Promise<Record<string, ProviderEntry>> {
  const keyed = new Map((await keyedPlugins()).map((p) => [p.name, p]));
  const known = [...keyed.keys(), LOCAL];
  const providers = opts.provider ?? [...keyed.values()].filter((p) => envHasKey(p, env)).map((p) => p.name);
  for (const p of providers) if (!known.includes(p)) throw new UsageError(`--provider: unknown provider '${p}'; one of ${known.join(", ")}`);
  const missing = providers.filter((p) => p !== LOCAL && !envHasKey(keyed.get(p)!, env));
  if (missing.length)
    throw new UsageError(
      `--provider ${missing.join(", ")}: no key in the environment (${missing.map((p) => envReference(keyed.get(p)!).replace(/[${}]/g, "")).join(", ")}); export it first`,
    );
  const urls = baseUrls(opts.baseUrl ?? [], providers);
  const entries = Object.fromEntries(
    providers.map((p) => [
      p,
      entryFor(p, {
        apiKey: p === LOCAL ? undefined : envReference(keyed.get(p)!),
        baseUrl: urls.get(p) ?? (p === LOCAL ? LOCAL_URL : undefined),
      }),
    ]),
  );
  if (!opts.check) return entries;
  const checks = await Promise.all(providers.map((p) => checkEntry(p, entries[p]!, env)));
  for (const c of checks) process.stderr.write(`${checkLine(c)}\n`);
  const of = (status: string) => checks.filter((c) => c.status === status).map((c) => c.provider);
  const wrong = [
    ...(of("rejected").length ? [`the key of ${of("rejected").join(", ")} was rejected`] : []),
    ...(of("not_found").length ? [`the base URL of ${of("not_found").join(", ")} answered HTTP 404`] : []),
  ];
  if (wrong.length) throw new Error(`${wrong.join("; ")}; nothing written (fix it, or pass --no-check)`);
  return entries;
}

async function interactive(opts: InitOptions, env: NodeJS.ProcessEnv): Promise<{ port: number; compat: string; providers: Record<string, ProviderEntry> }> {
  const p = await import("@inquirer/prompts");
  const { askProviders, askProvider } = await import("./init-ask.js");
  const port = opts.port ?? (await p.number({ message: "Port:", default: 8787, min: 0, max: 65535 })) ?? 8787;
  const chosen = opts.provider ?? (await askProviders(p, env));
  const providers: Record<string, ProviderEntry> = {};
  for (const name of chosen) providers[name] = await askProvider(p, name, env, opts.check);
  const compat = opts.compat ?? (await askCompat());
  return { port, compat, providers };
}

export function initCommand(program: Command): void {
  program
    .command("init")
    .description("write gateway.config.yaml: providers, their keys (checked live) and base URLs")
    .option("--yes", "do not ask: --provider flags (or every provider whose key variable is set), keys from the environment")
    .option("--provider <name>", `a provider to set up (repeatable): a built-in provider with a key (openai, anthropic, ...) or ${LOCAL}`, collect)
    .option("--base-url <url>", "a provider's base URL: <url> with one --provider, else <provider>=<url> (repeatable)", collect)
    .option("--no-check", "do not check the keys with a live call")
    .option("--port <port>", "server.port (default 8787)", positiveIntOrZero)
    .option("--force", "overwrite an existing file")
    .option("--file <file>", "where to write", "gateway.config.yaml")
    .option("--compat <mode>", "request validation: openai (the OpenAI superset: tools, response_format, ...), strict (docs/http.md exactly) or passthrough")
    .action(async (opts: InitOptions, cmd: Command) => {
      if (existsSync(opts.file) && !opts.force) throw new UsageError(`${opts.file} exists (use --force to overwrite)`);
      if (opts.compat !== undefined && !COMPAT_MODES.includes(opts.compat)) throw new UsageError(`--compat must be one of ${COMPAT_MODES.join(", ")}`);
      if (!opts.yes && !canPrompt()) throw new UsageError("--yes is required when not running interactively");
      // Proposed: agents and SDKs send tools and response_format on most requests (docs/openai-compat.md).
      const answers = opts.yes
        ? { port: opts.port ?? 8787, compat: opts.compat ?? "openai", providers: await fromFlags(opts, process.env) }
        : await interactive(opts, process.env);
      const config = {
        server: { host: "127.0.0.1", port: answers.port, compat: answers.compat },
        database: "./gateway.db",
        providers: answers.providers,
        limits: { key: { requests: 600, window: 60 } },
      };
      const secret = Object.values(answers.providers).some(holdsLiteralKey);
      const { stringify } = await import("yaml");
      writeFileSync(opts.file, `# gateway config: see gateway.config.example.yaml for every key\n${stringify(config)}`, { mode: secret ? 0o600 : 0o644 });
      if (secret) chmodSync(opts.file, 0o600); // an existing file (--force) keeps its mode otherwise
      const names = Object.keys(answers.providers);
      output(
        cmd,
        { file: opts.file, providers: names, compat: answers.compat, mode: secret ? "0600" : undefined },
        `Wrote ${opts.file} (${names.length} provider${names.length === 1 ? "" : "s"}: ${names.join(", ") || "none"}${secret ? "; it holds a key: mode 0600" : ""}). ` +
          `Next: ${selfCommand()} doctor, then ${selfCommand()} keys create --name my-app`,
      );
    });
}

/** `gateway init`: writes gateway.config.yaml, asking on a TTY or with defaults (--yes). */
import { existsSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { UsageError } from "../errors.js";
import { BYOK_PROVIDERS } from "../plugins.js";
import { canPrompt, output } from "./context.js";

const KEY_VARS: Record<string, string> = {
  openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY", google: "GEMINI_API_KEY", azure: "AZURE_OPENAI_API_KEY",
  bedrock: "AWS_ACCESS_KEY_ID", mistral: "MISTRAL_API_KEY", groq: "GROQ_API_KEY", deepseek: "DEEPSEEK_API_KEY",
  xai: "XAI_API_KEY", together: "TOGETHER_API_KEY", fireworks: "FIREWORKS_API_KEY",
};

const COMPAT_MODES = ["openai", "strict", "passthrough"];

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

export function initCommand(program: Command): void {
  program.command("init")
    .description("write gateway.config.yaml")
    .option("--yes", "use defaults without asking")
    .option("--force", "overwrite an existing file")
    .option("--file <file>", "where to write", "gateway.config.yaml")
    .option("--compat <mode>", "request validation: openai (the OpenAI superset: tools, response_format, ...), strict (api.md exactly) or passthrough")
    .action(async (opts: { yes?: boolean; force?: boolean; file: string; compat?: string }, cmd: Command) => {
      if (existsSync(opts.file) && !opts.force) throw new UsageError(`${opts.file} exists (use --force to overwrite)`);
      if (opts.compat !== undefined && !COMPAT_MODES.includes(opts.compat)) throw new UsageError(`--compat must be one of ${COMPAT_MODES.join(", ")}`);
      // Proposed: agents and SDKs send tools and response_format on most requests (contract.md §11).
      let compat = opts.compat ?? "openai";
      let port = 8787;
      let providers = BYOK_PROVIDERS.filter((p) => process.env[KEY_VARS[p]!]);
      // Bedrock's key is the id and the secret together (see providers/bedrock).
      const template = (p: string) => (p === "bedrock" ? "${AWS_ACCESS_KEY_ID}:${AWS_SECRET_ACCESS_KEY}" : `\${${KEY_VARS[p]}}`);
      if (!opts.yes) {
        if (!canPrompt()) throw new UsageError("--yes is required when not running interactively");
        const { checkbox, number } = await import("@inquirer/prompts");
        port = (await number({ message: "Port:", default: 8787, min: 0, max: 65535 })) ?? 8787;
        providers = await checkbox({ message: "Providers:", choices: BYOK_PROVIDERS.map((p) => ({ value: p, checked: providers.includes(p) })) });
        if (opts.compat === undefined) compat = await askCompat();
      }
      const config = {
        server: { host: "127.0.0.1", port, compat },
        database: "./gateway.db",
        providers: Object.fromEntries(providers.map((p) => [p, { apiKey: template(p) }])),
        limits: { key: { requests: 600, window: 60 } },
      };
      const { stringify } = await import("yaml");
      writeFileSync(opts.file, `# gateway config: see gateway.config.example.yaml for every key\n${stringify(config)}`);
      output(cmd, { file: opts.file, providers, compat }, `Wrote ${opts.file} (${providers.length} providers). Next: gateway keys create --name my-app`);
    });
}

/**
 * A key's own secret guardrail mode on the command line (docs/guardrails.md "Modes"):
 * `--guardrails block|redact|log|off` on `keys create` and `keys update`; a key without one
 * takes the config's `guardrails.secrets.mode`.
 */
import { Option, type Command } from "commander";
import { MODES, type GuardMode } from "../../guardrails/policy.js";

export interface GuardrailsFlags {
  guardrails?: GuardMode;
}

export function withGuardrailsOption(cmd: Command): Command {
  return cmd.addOption(
    new Option("--guardrails <mode>", "secret guardrail for this key's requests and answers (default: the config's guardrails.secrets.mode)").choices(MODES),
  );
}

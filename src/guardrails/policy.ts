/**
 * What the secret guardrail does for one request (contract §18, docs/guardrails.md "Modes"):
 * the key's mode, else its account's, else the config's; `off` unless one is set. The
 * compiled rules are built once per settings object.
 */
import { Scanner, type CustomRule } from "./engine.js";
import { BUILTIN_RULES } from "./rules.js";

export const MODES = ["block", "redact", "log", "off"] as const;
export type GuardMode = (typeof MODES)[number];
export type Direction = "request" | "response";

/** `guardrails.secrets` of the config, as validated there. */
export interface SecretSettings {
  mode: GuardMode;
  direction: readonly Direction[];
  /** Built-in names and custom `{name, regex}`; absent: every built-in rule. */
  rules?: ReadonlyArray<string | CustomRule> | undefined;
}

/** One hit as the ledger, the log line and the metrics see it: never the secret. */
export interface GuardHit {
  rule: string;
  action: Exclude<GuardMode, "off">;
  direction: Direction;
}

/** The guardrail of one request: its mode per direction, the scanner, and the hits so far. */
export interface Guard {
  mode: Exclude<GuardMode, "off">;
  request: boolean;
  response: boolean;
  scanner: Scanner;
  hits: GuardHit[];
}

const scanners = new WeakMap<SecretSettings, Scanner>();

/** The scanner for these settings' rules, compiled on first use. */
function scannerOf(settings: SecretSettings): Scanner {
  let s = scanners.get(settings);
  if (!s) scanners.set(settings, (s = buildScanner(settings.rules)));
  return s;
}

function buildScanner(rules: SecretSettings["rules"]): Scanner {
  if (!rules) return new Scanner(BUILTIN_RULES);
  const names = new Set(rules.filter((r): r is string => typeof r === "string"));
  return new Scanner(
    BUILTIN_RULES.filter((r) => names.has(r.name)),
    rules.filter((r): r is CustomRule => typeof r !== "string"),
  );
}

/** The request's guard, or undefined when the guardrail is off for it. */
export function guardFor(settings: SecretSettings | undefined, keyMode?: GuardMode | null, accountMode?: GuardMode | null): Guard | undefined {
  const mode = keyMode ?? accountMode ?? settings?.mode ?? "off";
  if (mode === "off") return undefined;
  const direction = settings?.direction ?? ["request", "response"];
  return {
    mode,
    request: direction.includes("request"),
    response: direction.includes("response"),
    scanner: scannerOf(settings ?? DEFAULT_SETTINGS),
    hits: [],
  };
}

const DEFAULT_SETTINGS: SecretSettings = { mode: "off", direction: ["request", "response"] };

/**
 * `guardrails` of gateway.config.yaml (contract §18, docs/guardrails.md): the secret
 * guardrail's mode, the directions it checks and its rules. Kept apart from config/config.ts,
 * which assembles it. Rule names and custom regexes are checked here, at start.
 */
import { z } from "zod";
import { BUILTIN_RULES } from "../guardrails/rules.js";
import { MODES } from "../guardrails/policy.js";
import { checkPattern } from "../guardrails/engine.js";

const BUILTIN = BUILTIN_RULES.map((r) => r.name);

const CustomRule = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "Expected a rule name of lowercase letters, digits and dashes"),
  regex: z
    .string()
    .min(1)
    .superRefine((pattern, ctx) => {
      const why = checkPattern(pattern);
      if (why) ctx.addIssue({ code: "custom", message: `not an RE2 regex: ${why}` });
    }),
});

const Rule = z.union([z.enum(BUILTIN as [string, ...string[]], { message: `Expected a built-in rule (${BUILTIN.join(", ")}) or {name, regex}` }), CustomRule]);

export const GuardrailsConfig = z.strictObject({
  secrets: z
    .strictObject({
      mode: z.enum(MODES).default("off"),
      direction: z
        .array(z.enum(["request", "response"]))
        .min(1)
        .default(["request", "response"]),
      rules: z.array(Rule).min(1).optional(),
    })
    .prefault({}),
});

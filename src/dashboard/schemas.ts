/**
 * The dashboard API's bodies and answers as zod schemas: requests are validated with them
 * (src/core/validate.ts gives docs/http.md's `<field>: <problem>` messages) and /dashboard/api/openapi.json
 * is generated from them, so the description cannot drift from the code.
 */
import { z } from "zod";
import { BUDGET_PERIODS } from "../core/budget.js";
import { ROLES } from "../core/roles.js";

const Usd = z
  .string()
  .regex(/^\d+(\.\d{1,9})?$/, "Expected a USD amount like 10 or 0.25")
  .describe("Decimal USD, exact to 1e-9.");
const Money = z.string().describe("Decimal USD, exact.");
const Time = z.string().describe("ISO 8601 time.");
const Account = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "Expected letters, digits, '.', '_' or '-'");

export const SignInBody = z.strictObject({ email: z.string().min(1).max(254), password: z.string().min(1).max(1024) });
export const SetPasswordBody = z.strictObject({
  token: z.string().min(1).max(200),
  password: z.string().min(10, "Must be at least 10 characters").max(1024),
});
export const CreateKeyBody = z.strictObject({
  name: z.string().trim().min(1, "Required").max(100),
  expires_in_days: z.number().int().positive().max(3650).optional().describe("The key expires this many days from now."),
  rpm: z.number().int().positive().optional().describe("Requests per 60 s for this key."),
  budget: Usd.optional().describe("Most this key may spend per budget_period."),
  budget_period: z.enum(BUDGET_PERIODS).optional().describe("day, week, month (calendar periods in UTC) or total (the default)."),
  account: Account.optional().describe("Admins only: the account the key draws on."),
});
export const UpdateKeyBody = z.strictObject({
  budget: Usd.nullable().optional().describe("null removes the key's budget."),
  budget_period: z.enum(BUDGET_PERIODS).optional(),
  rpm: z.number().int().positive().nullable().optional().describe("null: the configured key limit."),
  expires_in_days: z.number().int().positive().max(3650).nullable().optional().describe("From now; null: never expires."),
});
export const SetBudgetBody = z.strictObject({
  member: z.string().min(1).max(254).nullable().describe("A member's email (all keys they created), or null for the account's own budget."),
  amount: Usd,
  period: z.enum(BUDGET_PERIODS).default("month"),
  account: Account.optional().describe("Admins only: the account."),
});
export const BudgetView = z.object({
  account: z.string(),
  member: z.string().nullable(),
  level: z.enum(["account", "member"]),
  limit: Money,
  period: z.enum(BUDGET_PERIODS),
  spent: Money.describe("In the current period."),
  remaining: Money.describe("The limit minus the period's spend and open requests' holds."),
});
export const Budgets = z.object({ budgets: z.array(BudgetView), members: z.array(z.string()).describe("The account's members, for a member budget.") });
export const AddCreditsBody = z.strictObject({ account: Account, amount: Usd });
/** An account's MCP grant row (docs/mcp.md, "Grants"): a server and a tool glob (default all its tools). */
export const McpGrantBody = z.strictObject({
  server: z.string().trim().min(1, "Required").max(40),
  tools: z.string().trim().min(1).max(128).default("*"),
  account: Account.optional(),
});
export const SetByokBody = z.strictObject({ key: z.string().trim().min(1, "Required").max(4096), account: Account.optional() });

const RoleName = z.enum(ROLES);
export const AddMemberBody = z.strictObject({
  email: z.string().min(1).max(254),
  role: RoleName.describe("owner, admin, member or viewer (docs/dashboard.md, Members and roles)."),
  account: Account.optional(),
});
export const SetRoleBody = z.strictObject({ role: RoleName, account: Account.optional() });
const Pending = z.boolean().describe("The membership opens nothing yet: another account's owner invited this user (docs/dashboard.md, Invitations).");
export const Member = z.object({ email: z.string(), role: RoleName, pending: Pending, created_at: Time });
export const Members = z.array(Member);
export const MemberAdded = z.object({
  email: z.string(),
  account: z.string(),
  role: RoleName,
  created: z.boolean().describe("A new dashboard user: `link` is their one-time sign-in link (24 h). An existing user keeps their password."),
  pending: Pending,
  link: z.string().nullable(),
  expires_at: Time.nullable(),
});
export const Me = z.object({
  email: z.string(),
  account: z.string().describe("The account the dashboard opens on."),
  admin: z.boolean().describe("An instance administrator: every account, as owner."),
  role: RoleName.nullable().describe("The role in `account`; null when the user belongs to no account."),
  memberships: z.array(z.object({ account: z.string(), role: RoleName })),
});
export const KeyView = z.object({
  id: z.string(),
  name: z.string(),
  account: z.string(),
  masked: z.string().describe("`sk-…` + the last 4 characters."),
  state: z.enum(["active", "revoked", "expired"]),
  created_at: Time.nullable(),
  expires_at: Time.nullable(),
  last_used_at: Time.nullable(),
  rpm: z.number().nullable(),
  cache: z.enum(["off", "on", "nondeterministic"]).describe("The response cache for this key's requests (docs/cache.md)."),
  budget: Money.nullable(),
  budget_period: z.string(),
  spent: Money,
  limits_by_manager: z.boolean().describe("An owner or admin set this key's limits: the member who created it may only tighten them."),
});
export const NewKey = KeyView.extend({ key: z.string().describe("The full key: in this answer only, never again.") });
const Totals = {
  requests: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  cost: Money,
  list_cost: Money,
  uncollected: Money,
  cache_hits: z.number().describe("Requests answered from the response cache (charged 0)."),
  cache_saved: Money.describe("What those cache hits would have cost at list price."),
  bounded: z.number().describe("Requests billed at a bound: their ledger rows keep the counts reported (docs/limits.md)."),
  tool_cost: Money.describe("Per-call tool fees (web search, file search, grounding) inside the cost at list price."),
};
export const Usage = z.object({
  account: z.string(),
  since: Time,
  ...Totals,
  by_model: z.array(z.object({ model: z.string(), ...Totals })),
  by_key: z.array(z.object({ key_id: z.string(), name: z.string().nullable(), ...Totals })),
  by_endpoint: z.array(z.object({ endpoint: z.string(), ...Totals })),
  daily: z.array(z.object({ day: z.string().describe("UTC date."), cost: Money, requests: z.number() })).describe("The last 30 days, every day."),
  recent: z.array(
    z.object({
      request_id: z.string(),
      created_at: Time,
      key_id: z.string(),
      key_name: z.string().nullable(),
      model: z.string(),
      provider: z.string().nullable(),
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      cost: Money,
      byok: z.boolean(),
      status: z.number().describe("HTTP status."),
      latency_ms: z.number(),
    }),
  ),
});
export const Credits = z.object({
  account: z.string(),
  balance: Money,
  history: z.array(z.object({ amount: Money, kind: z.enum(["grant", "adjustment"]), reason: z.string().nullable(), created_at: Time })),
});
const AuditFields = z.record(z.string(), z.unknown()).nullable().describe("The changed fields; never a secret.");
export const AuditLog = z.object({
  account: z.string(),
  time_zone: z.literal("UTC"),
  records: z.array(
    z.object({
      id: z.number().int(),
      at: Time,
      actor: z.string().describe("A dashboard user's email, `cli:<os user>`, or `config`."),
      ip: z.string().nullable(),
      action: z.string().describe("key.create, key.revoke, key.update, credits.add, credits.adjust, byok.set, byok.remove, user.add, …"),
      target: z.string(),
      before: AuditFields,
      after: AuditFields,
    }),
  ),
});
export const CreditsAdded = z.object({ account: z.string(), added: Money, balance: Money });
export const ByokKey = z.object({ provider: z.string(), account: z.string(), masked: z.string(), updated_at: Time });
export const ByokList = z.object({ providers: z.array(z.string()).describe("Providers that take an account's own key."), keys: z.array(ByokKey) });
export const ModelList = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      owned_by: z.string(),
      pricing: z.object({ prompt: Money, completion: Money }).optional(),
      context_length: z.number().optional(),
    }),
  ),
});
export const Accounts = z.array(z.object({ id: z.string(), balance: Money, keys: z.number(), spend: Money }));
export const ErrorBody = z.object({
  error: z.object({ message: z.string(), type: z.string(), code: z.string().nullable(), request_id: z.string() }),
});
export const SignInMethods = z.object({
  password: z.boolean().describe("Sign-in by password and sign-in link (dashboard.passwordSignIn)."),
  sso: z.boolean().describe("Single sign-on: GET /oidc/start (dashboard.oidc)."),
});

/** The Usage page's breakdown (docs/usage.md): `gateway usage --by ... --json`'s rows. */
export const UsageGroups = z.object({
  data: z.array(
    z.object({
      group: z
        .string()
        .nullable()
        .describe("The tag value, member email, key id, model, endpoint or UTC date; null: no such tag, or a key created from the CLI."),
      requests: z.number(),
      prompt_tokens: z.number(),
      completion_tokens: z.number(),
      cost: Money,
    }),
  ),
});

/** GET /alerts/banner: thresholds reached this period and a low balance (docs/alerts.md "The banner"). */
export const AlertBanner = z.object({
  account: z.string(),
  alerts: z.array(
    z.object({
      type: z.enum(["budget.threshold", "balance.low"]),
      level: z.enum(["account", "member", "key"]),
      member: z.string().optional(),
      key: z.string().optional(),
      threshold_percent: z.number().optional(),
      limit: Money,
      spent: Money.nullable(),
      remaining: Money,
      period: z.string().nullable(),
    }),
  ),
});
/** GET /alerts: an account's thresholds, webhooks (never their secrets) and delivery log, newest first. */
export const AlertLog = z.object({
  account: z.string(),
  thresholds: z.object({ account: z.string(), percents: z.array(z.number()), low_balance: Money.nullable() }),
  webhooks: z.array(z.object({ id: z.string(), account: z.string().nullable(), url: z.string(), created_at: z.string() })),
  deliveries: z.array(
    z.object({
      id: z.string(),
      url: z.string(),
      type: z.enum(["budget.threshold", "balance.low"]),
      account: z.string(),
      status: z.enum(["pending", "delivered", "failed"]),
      attempts: z.number(),
      last_status: z.number().nullable(),
      created_at: z.string().nullable(),
      delivered_at: z.string().nullable(),
    }),
  ),
});

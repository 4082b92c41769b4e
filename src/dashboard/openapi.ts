/** /dashboard/api/openapi.json, generated from the zod schemas the routes validate with (schemas.ts). */
import { z } from "zod";
import * as S from "./schemas.js";

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { target: "draft-2020-12", unrepresentable: "any", io: "input" });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const ok = (name: string | null, description = "OK") =>
  name === null ? { description } : { description, content: { "application/json": { schema: ref(name) } } };
const errors = {
  "4XX": {
    description:
      "docs/http.md's error object: 400 validation, 401 not signed in or wrong password, 403 Origin, admin only or `forbidden` (the role in this account does not allow it), 404 not found or not yours, 429 throttled.",
    content: { "application/json": { schema: ref("Error") } },
  },
};
const body = (name: string) => ({ required: true, content: { "application/json": { schema: ref(name) } } });
const account = [
  { name: "account", in: "query", required: false, schema: { type: "string" }, description: "Another account the user is a member of (admins: any account)." },
];
const email = { name: "email", in: "path", required: true, schema: { type: "string" } };
const usageQuery = [
  {
    name: "by",
    in: "query",
    required: false,
    schema: { type: "string", default: "model" },
    description: "tag:NAME, member, key, model, endpoint, tool or day.",
  },
  { name: "since", in: "query", required: false, schema: { type: "string" }, description: "A date (UTC midnight), an ISO time or a duration back (7d)." },
  { name: "until", in: "query", required: false, schema: { type: "string" }, description: "Exclusive; a date includes that whole day." },
];

function op(summary: string, response: string | null, extra: Record<string, unknown> = {}, status = "200") {
  return { summary, security: [{ session: [] }], ...extra, responses: { [status]: ok(response), ...errors } };
}

export function dashboardOpenApi() {
  const schemas = Object.fromEntries(
    (
      [
        "SignInBody",
        "SetPasswordBody",
        "CreateKeyBody",
        "UpdateKeyBody",
        "SetBudgetBody",
        "BudgetView",
        "Budgets",
        "AddCreditsBody",
        "SetByokBody",
        "McpGrantBody",
        "Me",
        "KeyView",
        "NewKey",
        "Usage",
        "UsageGroups",
        "Credits",
        "CreditsAdded",
        "ByokKey",
        "ByokList",
        "AlertBanner",
        "AlertLog",
        "ModelList",
        "Accounts",
        "SignInMethods",
        "AddMemberBody",
        "SetRoleBody",
        "Members",
        "Member",
        "MemberAdded",
        "AuditLog",
        "ErrorBody",
      ] as const
    ).map((n) => [n === "ErrorBody" ? "Error" : n, json(S[n])]),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "LLM gateway dashboard API",
      version: "1.0.0",
      description:
        "What the web dashboard at /dashboard/ calls. A session cookie (HttpOnly, SameSite=Strict) from POST /session; every POST, PUT, PATCH and DELETE must carry the dashboard's own Origin. Money is decimal USD strings.",
    },
    servers: [{ url: "/dashboard/api" }],
    components: { securitySchemes: { session: { type: "apiKey", in: "cookie", name: "gateway_session" } }, schemas },
    paths: {
      "/session": {
        post: {
          summary: "Sign in (throttled: 10 failures per user, 30 per IP in 15 min)",
          requestBody: body("SignInBody"),
          responses: { 200: ok("Me"), ...errors },
        },
        delete: { summary: "Sign out: the session ends on the server", responses: { 204: ok(null, "Signed out"), ...errors } },
      },
      "/password": {
        post: {
          summary: "Spend a one-time sign-in link: set the password and sign in",
          requestBody: body("SetPasswordBody"),
          responses: { 200: ok("Me"), ...errors },
        },
      },
      "/me": { get: op("The signed-in user", "Me") },
      "/keys": {
        get: op("The account's keys, masked", "KeyView", { parameters: account }),
        post: op("Create a key: the full value is in this answer only", "NewKey", { requestBody: body("CreateKeyBody") }, "201"),
      },
      "/keys/{id}": {
        patch: op("Edit a key: budget, period, rpm, expiry (as gateway keys update)", "KeyView", {
          requestBody: body("UpdateKeyBody"),
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, ...account],
        }),
      },
      "/budgets": {
        get: op("The account's and its members' budgets, with spend and remaining (owners, admins)", "Budgets", { parameters: account }),
        put: op("Set the account's budget, or a member's", "BudgetView", { requestBody: body("SetBudgetBody") }),
        delete: op("Remove the account's budget, or a member's (?member=)", null, {
          parameters: [{ name: "member", in: "query", required: false, schema: { type: "string" } }, ...account],
        }),
      },
      "/keys/{id}/revoke": {
        post: op("Revoke a key", "KeyView", { parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, ...account] }),
      },
      "/usage": { get: op("Spend per day (30 days), by model, by key, and the latest requests", "Usage", { parameters: account }) },
      "/usage/groups": {
        get: op("Usage grouped one way over a date range (docs/usage.md); a member's covers only the keys they created", "UsageGroups", {
          parameters: [...usageQuery, ...account],
        }),
      },
      "/usage/groups.csv": {
        get: {
          ...op("The same rows as CSV: group,requests,prompt_tokens,completion_tokens,cost", null, { parameters: [...usageQuery, ...account] }),
          responses: {
            200: { description: "CSV, as gateway usage --by ... --csv prints it", content: { "text/csv": { schema: { type: "string" } } } },
            ...errors,
          },
        },
      },
      "/credits": {
        get: op("Balance and credit history", "Credits", { parameters: account }),
        post: op("Add credits (admins)", "CreditsAdded", { requestBody: body("AddCreditsBody") }),
      },
      "/accounts": { get: op("Accounts this user can see (admins: all)", "Accounts") },
      "/byok": { get: op("The account's own provider keys, masked", "ByokList", { parameters: account }) },
      "/byok/{provider}": {
        put: op("Set the account's key for a provider", "ByokKey", {
          requestBody: body("SetByokBody"),
          parameters: [{ name: "provider", in: "path", required: true, schema: { type: "string" } }],
        }),
        delete: op("Remove it", null, { parameters: [{ name: "provider", in: "path", required: true, schema: { type: "string" } }, ...account] }),
      },
      "/mcp": {
        get: op("MCP servers and their status, the account's grants, which keys may call which tools (owners, admins)", null, { parameters: account }),
      },
      "/mcp/grants": {
        put: op("Let the account's keys be granted a server's tools (a glob)", null, { requestBody: body("McpGrantBody") }),
        delete: op("Remove one of the account's MCP grants", null, {
          parameters: [
            { name: "server", in: "query", required: true, schema: { type: "string" } },
            { name: "tools", in: "query", required: false, schema: { type: "string" } },
            ...account,
          ],
        }),
      },
      "/models": { get: op("Models this account can use, with prices per 1M tokens", "ModelList", { parameters: account }) },
      "/health": { get: op("Provider health", null) },
      "/sign-in-methods": { get: { summary: "How users may sign in here (no session needed)", responses: { 200: ok("SignInMethods"), ...errors } } },
      "/oidc/start": {
        get: {
          summary: "Single sign-on: a redirect to the issuer (authorization code, PKCE S256); 404 sso_not_configured without dashboard.oidc",
          responses: { 302: ok(null, "To the issuer, or back to the sign-in page with sso_error=<code>"), ...errors },
        },
      },
      "/oidc/callback": {
        get: {
          summary: "Where the issuer sends the browser back: provisions the user, starts a session, redirects to /dashboard/",
          responses: { 302: ok(null, "To /dashboard/ signed in, or to the sign-in page with sso_error=<code>"), ...errors },
        },
      },
      "/members": {
        get: op("The account's members and their roles (owners)", "Members", { parameters: account }),
        post: op("Add a member; someone new gets a one-time sign-in link (owners)", "MemberAdded", { requestBody: body("AddMemberBody") }, "201"),
      },
      "/members/{email}": {
        put: op("Change a member's role; the last owner cannot be demoted (owners)", "Member", { requestBody: body("SetRoleBody"), parameters: [email] }),
        delete: op("Remove a member (the user and their keys stay); not the last owner (owners)", null, { parameters: [email, ...account] }),
      },
      "/alerts/banner": {
        get: op(
          "Budget thresholds reached this period and a low balance, for the banner (a member: the account's, their own and their keys' budgets, no balance)",
          "AlertBanner",
          { parameters: account },
        ),
      },
      "/alerts": { get: op("Thresholds, webhooks and the delivery log (owners and admins)", "AlertLog", { parameters: account }) },
      "/audit": { get: op("The account's audit log, newest first (admins also see the instance's records)", "AuditLog", { parameters: account }) },
    },
  };
}

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
      "docs/http.md's error object: 400 validation, 401 not signed in or wrong password, 403 Origin or admin only, 404 not found or not yours, 429 throttled.",
    content: { "application/json": { schema: ref("Error") } },
  },
};
const body = (name: string) => ({ required: true, content: { "application/json": { schema: ref(name) } } });
const account = [{ name: "account", in: "query", required: false, schema: { type: "string" }, description: "Admins only: another account." }];

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
        "AddCreditsBody",
        "SetByokBody",
        "Me",
        "KeyView",
        "NewKey",
        "Usage",
        "Credits",
        "CreditsAdded",
        "ByokKey",
        "ByokList",
        "ModelList",
        "Accounts",
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
        "What the web dashboard at /dashboard/ calls. A session cookie (HttpOnly, SameSite=Strict) from POST /session; every POST, PUT and DELETE must carry the dashboard's own Origin. Money is decimal USD strings.",
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
      "/keys/{id}/revoke": {
        post: op("Revoke a key", "KeyView", { parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, ...account] }),
      },
      "/usage": { get: op("Spend per day (30 days), by model, by key, and the latest requests", "Usage", { parameters: account }) },
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
      "/models": { get: op("Models this account can use, with prices per 1M tokens", "ModelList", { parameters: account }) },
      "/health": { get: op("Provider health", null) },
      "/audit": { get: op("The account's audit log, newest first (admins also see the instance's records)", "AuditLog", { parameters: account }) },
    },
  };
}

/**
 * The one error type of the gateway. Thrown where a problem is found, caught only at the
 * edges (the HTTP error handler renders it as docs/http.md's error object, the CLI runner prints
 * its message). `type` is docs/http.md's closed set; `code` is the stable machine-readable code.
 */
export type ErrorType = "invalid_request_error" | "authentication_error" | "insufficient_credits" | "not_found" | "rate_limit_error" | "upstream_error";

export class GatewayError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string | null;
  readonly headers: Record<string, string>;
  /** The request field at fault (`messages.0.content`), shown as `param` under `server.compat: openai`. */
  readonly param: string | null;

  constructor(
    status: number,
    type: ErrorType,
    code: string | null,
    message: string,
    options: { headers?: Record<string, string>; cause?: unknown; param?: string | null } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "GatewayError";
    this.status = status;
    this.type = type;
    this.code = code;
    this.headers = options.headers ?? {};
    this.param = options.param ?? null;
  }
}

export const invalidRequest = (message: string, code: string | null = null, param: string | null = null) =>
  new GatewayError(400, "invalid_request_error", code, message, { param });

/** Provider preferences that leave no endpoint of the model (docs/routing.md): the field that did it is named. */
export const noEndpointMatches = (field: string, why: string) => invalidRequest(`${field}: ${why}`, "no_endpoint_matches", field);

export const invalidApiKey = () =>
  new GatewayError(401, "authentication_error", "invalid_api_key", "Invalid API key. Pass a valid key as 'Authorization: Bearer sk-...'.");

/** No Authorization header at all: same code as a wrong key (docs/http.md "Authentication"), a message that says what is missing (docs/cli.md). */
export const missingApiKey = () =>
  new GatewayError(401, "authentication_error", "invalid_api_key", "No API key was sent. Pass your gateway key in the header 'Authorization: Bearer sk-...'.");

/**
 * A 402 (docs/billing.md "Holds, charges and 402"): `message` says what refused and its fix
 * (billing/refusal.ts); `param` names the budget level that refused (`account`, `member`, `key`;
 * docs/limits.md "Budgets"), null for the balance.
 */
export const insufficientCredits = (message: string, param: string | null = null) =>
  new GatewayError(402, "insufficient_credits", null, message, { headers: { "x-should-retry": "false" }, param });

export const modelNotFound = (model: string) =>
  new GatewayError(
    404,
    "not_found",
    "model_not_found",
    `The model '${model}' does not exist or is not available to this account. GET /v1/models lists the usable ids.`,
    { param: "model" },
  );

/** A bare id (`gpt-4o-mini`) naming several catalog models this account can use: the client picks one (docs/cli.md "What serve tells the operator"). */
export const modelAmbiguous = (model: string, ids: string[]) =>
  new GatewayError(
    404,
    "not_found",
    "model_not_found",
    `The model '${model}' is ambiguous: it names ${ids.map((id) => `'${id}'`).join(", ")}. Send the full vendor/model id.`,
    { param: "model" },
  );

export const routeNotFound = (path: string) => new GatewayError(404, "not_found", "not_found", `No route for ${path}.`);

export const methodNotAllowed = (method: string, path: string, allow: string) =>
  new GatewayError(405, "invalid_request_error", "method_not_allowed", `Method ${method} is not allowed on ${path}.`, {
    headers: { allow },
  });

export const requestTooLarge = (limit: number) =>
  new GatewayError(413, "invalid_request_error", "request_too_large", `Request body exceeds the limit of ${limit} bytes.`);

export const requestHeadersTooLarge = () => new GatewayError(431, "invalid_request_error", "request_header_too_large", "The request's headers are too large.");

export const rateLimited = (scope: string, retryAfter: number) =>
  new GatewayError(429, "rate_limit_error", "rate_limited", `Rate limit exceeded for this ${scope}. Retry after ${retryAfter} s.`, {
    headers: { "retry-after": String(retryAfter) },
  });

/** Every endpoint of a model failed; the message never carries upstream detail (docs/http.md "Errors" rule 1). */
export const upstreamUnavailable = () => new GatewayError(503, "upstream_error", "upstream_unavailable", "The model is temporarily unavailable. Retry later.");

/**
 * The provider refused the gateway's own (platform) key with 401/403: a misconfiguration, not
 * a blip (docs/cli.md). Names the provider instances, never the key.
 */
export const upstreamAuthFailed = (providers: string[]) =>
  new GatewayError(
    502,
    "upstream_error",
    "upstream_auth_failed",
    providers.length === 1
      ? `The gateway's key for provider ${providers[0]} was rejected by the provider. The gateway operator must fix it (gateway doctor).`
      : `The gateway's keys for providers ${providers.join(", ")} were rejected by the providers. The gateway operator must fix them (gateway doctor).`,
  );

/** Every endpoint answered, and no answer was usable (over a cap, not the provider's format, bad usage). */
/**
 * The shared store (PostgreSQL) cannot be reached: requests that need money or keys stop here
 * with a 503 the client may retry, never a 500 (docs/fleet.md). The cause stays in the log.
 */
export const storeUnavailable = (cause?: unknown) =>
  new GatewayError(503, "upstream_error", "store_unavailable", "The gateway's database is temporarily unavailable. Retry later.", {
    cause,
    headers: { "retry-after": "1" },
  });

export const upstreamInvalid = () =>
  new GatewayError(502, "upstream_error", "upstream_invalid_response", "The provider sent an answer the gateway cannot use. Retry later.");

export const internalError = (cause?: unknown) => new GatewayError(500, "upstream_error", "internal_error", "Internal gateway error.", { cause });

/** Bad CLI usage (exit 2) as opposed to a failed operation (exit 1). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** Something the caller named does not exist, or is not theirs to see (the dashboard never says which). */
export const notFound = (message: string, code = "not_found") => new GatewayError(404, "not_found", code, message);

/** No valid dashboard session (docs/dashboard.md). */
export const signInRequired = (message = "Sign in to the dashboard first.") => new GatewayError(401, "authentication_error", "session_required", message);

/** A state-changing dashboard request from another origin, or an account holder reaching past their account. */
export const forbidden = (message: string, code: string) => new GatewayError(403, "invalid_request_error", code, message);

/** Sign-in by password or sign-in link while `dashboard.passwordSignIn` is false (docs/dashboard.md, "Single sign-on"). */
export const passwordSignInDisabled = () =>
  forbidden("Sign-in by password is turned off on this gateway (dashboard.passwordSignIn: false): use Sign in with SSO.", "password_sign_in_disabled");

/** Single sign-on asked for where `dashboard.oidc` is not set. */
export const ssoNotConfigured = () => notFound("Single sign-on is not configured on this gateway (dashboard.oidc).", "sso_not_configured");

/** The issuer's discovery document or token endpoint could not be reached in time. */
export const ssoUnavailable = (cause?: unknown) =>
  new GatewayError(503, "upstream_error", "sso_unavailable", "The single sign-on issuer could not be reached. Retry later.", { cause });

/**
 * A sign-in the issuer or the gateway refused: a bad or expired state, a failed code exchange or
 * ID token check (`sso_failed`), or an identity this gateway does not admit (`email_missing`,
 * `email_unverified`, `domain_not_allowed`).
 */
export const ssoRefused = (code: string, message: string) => new GatewayError(403, "authentication_error", code, message);

/** An `X-Gateway-Tags` header or a `metadata` map outside the rules of docs/usage.md ("Tags"); `param` names which. */
export const invalidTags = (message: string, param: "X-Gateway-Tags" | "metadata") => invalidRequest(message, "invalid_tags", param);
/** A dashboard user whose role in the account does not allow the action (docs/dashboard.md, "Members and roles"); code `forbidden`. */
export function roleForbidden(role: string, allowed: readonly string[]): GatewayError {
  const quoted = allowed.map((r) => `'${r}'`);
  const names = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
  return forbidden(`This needs the role ${names} in this account; yours is '${role}'.`, "forbidden");
}

/** Removing or demoting an account's last owner: someone must keep managing members and BYOK. */
export const lastOwner = (account: string) =>
  invalidRequest(`'${account}' must keep at least one owner: make another member owner first (gateway members set-role <email> owner).`, "last_owner", "role");

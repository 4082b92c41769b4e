/**
 * One single sign-on round trip (docs/dashboard.md, "Single sign-on"): authorization code with
 * PKCE (S256), state and nonce. What the callback must check is kept in a short-lived cookie
 * bound to this browser (any process of a fleet can finish the sign-in), HttpOnly and
 * SameSite=Lax (the issuer's redirect back is a cross-site navigation, which a Strict cookie
 * would miss), scoped to the callback's path, expiring in 10 minutes and cleared by the callback.
 */
import { getCookie, type H3Event } from "h3";
import type * as Client from "openid-client";
import { type GatewayError, ssoRefused, ssoUnavailable } from "../core/errors.js";
import type { Claims } from "../operations/sso-provision.js";
import { openidClient, type OidcIssuer } from "./oidc-issuer.js";

const COOKIE = "gateway_oidc";
const PATH = "/dashboard/api/oidc";
export const FLOW_TTL_MS = 10 * 60_000;

interface Pending {
  state: string;
  nonce: string;
  verifier: string;
  /** Epoch ms after which the callback refuses it, whatever the browser kept. */
  until: number;
}

export const flowCookie = (value: string, maxAgeS: number, secure: boolean) =>
  `${COOKIE}=${value}; Path=${PATH}; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;

/** Where the issuer sends the browser back to; register exactly this at the issuer. */
export const callbackUrl = (base: string) => `${base}${PATH}/callback`;

/** The issuer's authorization URL for a new sign-in, and the cookie value that lets the callback finish it. */
export async function beginSignIn(issuer: OidcIssuer, redirectUri: string, now: number): Promise<{ location: string; cookie: string }> {
  const config = await issuer.configuration();
  const client = await openidClient();
  const pending: Pending = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier(), until: now + FLOW_TTL_MS };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "openid email profile",
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
    code_challenge_method: "S256",
  });
  return { location: url.href, cookie: Buffer.from(JSON.stringify(pending)).toString("base64url") };
}

function pendingOf(event: H3Event, now: number): Pending {
  const raw = getCookie(event, COOKIE);
  let p: Partial<Pending> | undefined;
  try {
    p = raw ? (JSON.parse(Buffer.from(raw, "base64url").toString()) as Partial<Pending>) : undefined;
  } catch {
    p = undefined;
  }
  if (!p || typeof p.state !== "string" || typeof p.nonce !== "string" || typeof p.verifier !== "string" || typeof p.until !== "number" || p.until <= now)
    throw ssoRefused("sso_failed", "This sign-in was not started here, expired (10 minutes) or was already used: start it again.");
  return p as Pending;
}

/**
 * Checks the callback against the pending sign-in (state), exchanges the code with the PKCE
 * verifier, has openid-client validate the ID token (signature, issuer, audience, nonce,
 * expiry), and returns its claims, completed from UserInfo when the ID token lacks the email
 * or the role claim (issuers that conform strictly put them only there).
 */
export async function finishSignIn(issuer: OidcIssuer, event: H3Event, redirectUri: string, now: number): Promise<Claims> {
  const pending = pendingOf(event, now);
  const config = await issuer.configuration();
  const client = await openidClient();
  let tokens: Awaited<ReturnType<typeof Client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, new URL(redirectUri + event.url.search), {
      pkceCodeVerifier: pending.verifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    throw refusal(err);
  }
  const claims: Claims = { ...tokens.claims() };
  const role = issuer.settings.roleClaim;
  if ((claims.email === undefined || (role !== undefined && claims[role] === undefined)) && config.serverMetadata().userinfo_endpoint) {
    const info = await client.fetchUserInfo(config, tokens.access_token, String(claims.sub)).catch((err: unknown) => {
      throw refusal(err);
    });
    for (const [k, v] of Object.entries(info)) if (claims[k] === undefined) claims[k] = v;
  }
  return claims;
}

/** The issuer out of reach is `sso_unavailable`; any other failure is the answer refused. */
function refusal(err: unknown): GatewayError {
  if (err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError" || err.message === "fetch failed")) return ssoUnavailable(err);
  return Object.assign(ssoRefused("sso_failed", `The identity provider's answer was refused: ${reason(err)}.`), { cause: err });
}

/** The issuer's `error` (access_denied, ...) or openid-client's check that failed; never a token. */
function reason(err: unknown): string {
  // openid-client's AuthorizationResponseError and ResponseBodyError carry the issuer's `error` code.
  if (err instanceof Error && "error" in err && typeof err.error === "string") return err.error;
  return err instanceof Error ? err.message.replace(/[^\w .,:'()-]/g, "").slice(0, 200) : "unknown error";
}

/**
 * The OpenID Connect issuer of `dashboard.oidc` (docs/dashboard.md, "Single sign-on"), through
 * openid-client. Discovery is lazy and bounded by `timeout`: an unreachable issuer never stops
 * `serve` from starting; it only makes SSO sign-in answer `sso_unavailable` until it answers.
 */
import type * as Client from "openid-client";
import type { OidcConfig } from "../config/dashboard.js";
import { ssoUnavailable } from "../core/errors.js";

/** openid-client, loaded at the first SSO sign-in: a gateway without SSO never pays its load at start. */
export const openidClient = () => import("openid-client");

export class OidcIssuer {
  private found: Promise<Client.Configuration> | undefined;

  constructor(readonly settings: OidcConfig) {}

  /**
   * The issuer's metadata and this client, discovered once and kept. A failure is forgotten, so
   * the next sign-in tries again (sign-ins that overlap share one attempt; each is bounded by
   * `timeout`, and the dashboard's per-IP limit bounds how often).
   */
  async configuration(): Promise<Client.Configuration> {
    if (!this.found) {
      this.found = this.discover();
      this.found.catch(() => (this.found = undefined));
    }
    try {
      return await this.found;
    } catch (err) {
      throw ssoUnavailable(err);
    }
  }

  private async discover(): Promise<Client.Configuration> {
    const client = await openidClient();
    const o = this.settings;
    const url = new URL(o.issuer);
    // The config allows http:// only on loopback (config/dashboard.ts); openid-client needs telling.
    const execute = url.protocol === "http:" ? [client.allowInsecureRequests] : [];
    const auth = o.clientSecret === undefined ? client.None() : client.ClientSecretBasic(o.clientSecret);
    return client.discovery(url, o.clientId, o.clientSecret, auth, { execute, timeout: o.timeout });
  }
}

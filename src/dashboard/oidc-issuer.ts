/**
 * The OpenID Connect issuer of `dashboard.oidc` (docs/dashboard.md, "Single sign-on"), through
 * openid-client. Discovery is lazy and bounded by `timeout`: an unreachable issuer never stops
 * `serve` from starting; it only makes SSO sign-in answer `sso_unavailable` until it answers.
 */
import * as client from "openid-client";
import type { OidcConfig } from "../config/dashboard.js";
import { ssoUnavailable } from "../core/errors.js";

/** After a failed discovery, the next sign-in tries again no sooner than this. */
const RETRY_MS = 5_000;

export class OidcIssuer {
  private found: Promise<client.Configuration> | undefined;
  private failedAt = -Infinity;

  constructor(
    readonly settings: OidcConfig,
    private readonly now: () => number,
  ) {}

  /** The issuer's metadata and this client, discovered once and kept; a failure is retried later. */
  async configuration(): Promise<client.Configuration> {
    if (!this.found) {
      if (this.now() - this.failedAt < RETRY_MS) throw ssoUnavailable();
      this.found = this.discover();
      this.found.catch(() => {
        this.found = undefined;
        this.failedAt = this.now();
      });
    }
    try {
      return await this.found;
    } catch (err) {
      throw ssoUnavailable(err);
    }
  }

  private discover(): Promise<client.Configuration> {
    const o = this.settings;
    const url = new URL(o.issuer);
    // The config allows http:// only on loopback (config/dashboard.ts); openid-client needs telling.
    const execute = url.protocol === "http:" ? [client.allowInsecureRequests] : [];
    const auth = o.clientSecret === undefined ? client.None() : client.ClientSecretBasic(o.clientSecret);
    return client.discovery(url, o.clientId, o.clientSecret, auth, { execute, timeout: o.timeout });
  }
}

/**
 * The `dashboard` key of gateway.config.yaml (docs/dashboard.md): the public address, how users
 * sign in (passwords and sign-in links, single sign-on over OpenID Connect) and how long an unused
 * session lives. Kept apart from config/config.ts, which assembles it.
 */
import { z } from "zod";
import { ROLES } from "../core/roles.js";

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration as the CLI writes them (`90s`, `30m`, `12h`, `7d`) or a number of seconds (as
 * `cache.ttl` and `limits` windows are); in milliseconds once parsed.
 */
const Duration = z
  .union([z.number().int().positive(), z.string().regex(/^\d+[smhd]$/, "expected a duration like 30m, 12h or 7d, or a number of seconds")])
  .transform((v) => (typeof v === "number" ? v * 1000 : Number(v.slice(0, -1)) * UNIT_MS[v.slice(-1)]!))
  .refine((ms) => ms > 0, "expected a positive duration");

/** 127.0.0.0/8, ::1 and localhost: the only hosts a plain-http issuer may have. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

const Domain = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i, "expected an email domain like example.com")
  .transform((d) => d.toLowerCase());

/** Single sign-on (docs/dashboard.md, "Single sign-on"): one OpenID Connect issuer. */
export const OidcConfig = z
  .strictObject({
    /** The issuer identifier; discovery reads `<issuer>/.well-known/openid-configuration`. */
    issuer: z.url(),
    clientId: z.string().min(1),
    /** A confidential client's secret; give it as `${VAR}`. Absent: a public client (PKCE only). */
    clientSecret: z.string().min(1).optional(),
    /** Email domain -> the account its users are provisioned into; any other domain is refused. */
    allowedDomains: z.record(Domain, z.string().min(1)).refine((m) => Object.keys(m).length > 0, "expected at least one domain"),
    /** A claim whose value (or one of whose values) is owner, admin, member or viewer. */
    roleClaim: z.string().min(1).optional(),
    /** The role when the claim is absent or names no role. */
    defaultRole: z.enum(ROLES).default("member"),
    /** Discovery and token requests to the issuer give up after this many seconds. */
    timeout: z.number().int().positive().max(120).default(10),
  })
  .superRefine((o, ctx) => {
    const url = new URL(o.issuer);
    if (url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))) return;
    ctx.addIssue({ code: "custom", path: ["issuer"], message: "expected an https:// issuer (http:// only on loopback: 127.0.0.1, ::1, localhost)" });
  });
export type OidcConfig = z.output<typeof OidcConfig>;

export const DashboardConfig = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** The public address: sign-in links, the Origin check and the SSO redirect URI use it. */
    url: z.url().optional(),
    /** false: no sign-in by password or sign-in link; only single sign-on. */
    passwordSignIn: z.boolean().default(true),
    oidc: OidcConfig.optional(),
    /** A session unused this long ends (it ends 7 days after sign-in anyway). */
    sessionIdle: Duration.prefault("12h"),
  })
  // With passwords off and no issuer nobody could sign in: refused at start, not found out later.
  .superRefine((d, ctx) => {
    if (!d.passwordSignIn && !d.oidc)
      ctx.addIssue({ code: "custom", path: ["passwordSignIn"], message: "false needs dashboard.oidc (else nobody can sign in)" });
  });
export type DashboardConfig = z.output<typeof DashboardConfig>;

/**
 * A dashboard user's role in one account (docs/dashboard.md, "Members and roles"): `owner`
 * does everything (members and BYOK included), `admin` manages anyone's keys, budgets and
 * alerts, `member` only their own keys and usage, `viewer` reads usage. An instance
 * administrator (`users add --admin`) is outside roles: it sees every account.
 */
export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => typeof value === "string" && (ROLES as readonly string[]).includes(value);

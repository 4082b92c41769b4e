/**
 * What each role may do in an account (docs/dashboard.md, "Members and roles"): the one table
 * the dashboard API consults. An instance administrator acts as `owner` in every account.
 */
import { roleForbidden } from "../core/errors.js";
import type { Role } from "../core/roles.js";

const ALL: readonly Role[] = ["owner", "admin", "member", "viewer"];
const MANAGERS: readonly Role[] = ["owner", "admin"];

/** Every action, with the roles allowed it. */
const TABLE = {
  /** See and revoke every key of the account, whoever created it. */
  "keys.any": MANAGERS,
  /** Create keys; see and revoke the ones you created. */
  "keys.own": ["owner", "admin", "member"],
  /** The account's whole usage (a member reads only their own keys' usage). */
  "usage.account": ["owner", "admin", "viewer"],
  /** Usage at all: the account's, or one's own. */
  "usage.read": ALL,
  /** Balance and credit history. */
  "credits.read": ["owner", "admin", "viewer"],
  /** BYOK keys: list (masked), set, remove. */
  byok: ["owner"],
  /** List members, add them, change their roles, remove them. */
  members: ["owner"],
  /** Budgets and alerts of the account and its members. */
  budgets: MANAGERS,
  alerts: MANAGERS,
  /** The account's audit log (docs/audit.md). */
  audit: MANAGERS,
  /** MCP servers, the account's grants and what each key may call; adding and removing the account's grants (docs/mcp.md). */
  mcp: MANAGERS,
  /** The model list and provider health. */
  "models.read": ALL,
} satisfies Record<string, readonly Role[]>;

export type Action = keyof typeof TABLE;

export const can = (role: Role, action: Action): boolean => (TABLE[action] as readonly Role[]).includes(role);

/** A 403 `forbidden` naming the roles that may, when `role` may not. */
export function requireRole(role: Role, action: Action): void {
  if (!can(role, action)) throw roleForbidden(role, TABLE[action] as readonly Role[]);
}

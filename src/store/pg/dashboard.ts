/**
 * Dashboard users, sessions and one-time sign-in links on PostgreSQL: the same rows as SQLite
 * (sqlite/dashboard.ts). Deleting a user cascades to its sessions and links. Tokens arrive
 * here hashed.
 */
import type pg from "pg";
import type { Role } from "../../core/roles.js";
import type { DashboardSession, DashboardUser, Membership, TakenLink } from "../dashboard.js";
import { query, transaction } from "./db.js";
import { notify } from "./watch.js";

interface UserRow {
  email: string;
  account: string;
  admin: boolean;
  password_hash: string | null;
  created_at: string;
  vouched_by: string | null;
}

const fromRow = (r: UserRow): DashboardUser => ({
  email: r.email,
  account: r.account,
  admin: r.admin,
  passwordHash: r.password_hash,
  createdAt: Number(r.created_at),
  vouchedBy: r.vouched_by,
});

interface MemberRow {
  email: string;
  account: string;
  role: Role;
  created_at: string;
}

const fromMember = (r: MemberRow): Membership => ({ email: r.email, account: r.account, role: r.role, createdAt: Number(r.created_at) });
const MEMBER_SELECT = "SELECT email, account, role, created_at FROM memberships";
const SET_MEMBERSHIP = `INSERT INTO memberships (email, account, role, created_at) VALUES ($1, $2, $3, $4)
  ON CONFLICT (email, account) DO UPDATE SET role = excluded.role`;

export function pgDashboard(pool: pg.Pool) {
  return {
    createUser: (u: DashboardUser, role: Role = "owner"): Promise<void> =>
      transaction(pool, async (c) => {
        await c.query("INSERT INTO dashboard_users (email, account, admin, password_hash, created_at, vouched_by) VALUES ($1, $2, $3, $4, $5, $6)", [
          u.email,
          u.account,
          u.admin,
          u.passwordHash,
          u.createdAt,
          u.vouchedBy,
        ]);
        await c.query(SET_MEMBERSHIP, [u.email, u.account, role, u.createdAt]);
        await notify(c);
      }),
    async memberships(email: string): Promise<Membership[]> {
      return (await query<MemberRow>(pool, `${MEMBER_SELECT} WHERE email = $1 ORDER BY created_at, account`, [email])).rows.map(fromMember);
    },
    async listMembers(account: string): Promise<Membership[]> {
      return (await query<MemberRow>(pool, `${MEMBER_SELECT} WHERE account = $1 ORDER BY email`, [account])).rows.map(fromMember);
    },
    setMembership: (m: Membership): Promise<void> =>
      transaction(pool, async (c) => {
        await c.query(SET_MEMBERSHIP, [m.email, m.account, m.role, m.createdAt]);
        await notify(c);
      }),
    removeMembership: (email: string, account: string): Promise<boolean> =>
      transaction(pool, async (c) => {
        const { rowCount } = await c.query("DELETE FROM memberships WHERE email = $1 AND account = $2", [email, account]);
        await notify(c);
        return (rowCount ?? 0) > 0;
      }),
    async findUser(email: string): Promise<DashboardUser | undefined> {
      const { rows } = await query<UserRow>(pool, "SELECT * FROM dashboard_users WHERE email = $1", [email]);
      return rows[0] && fromRow(rows[0]);
    },
    async listUsers(): Promise<DashboardUser[]> {
      return (await query<UserRow>(pool, "SELECT * FROM dashboard_users ORDER BY email")).rows.map(fromRow);
    },
    async removeUser(email: string): Promise<boolean> {
      return ((await query(pool, "DELETE FROM dashboard_users WHERE email = $1", [email])).rowCount ?? 0) > 0;
    },
    /** The new hash and the end of every session of the user, together. */
    setPassword: (email: string, passwordHash: string, vouchedBy: string | null): Promise<void> =>
      transaction(pool, async (c) => {
        await c.query("UPDATE dashboard_users SET password_hash = $1, vouched_by = $3 WHERE email = $2", [passwordHash, email, vouchedBy]);
        await c.query("DELETE FROM dashboard_sessions WHERE email = $1", [email]);
      }),
    vouchForUser: (email: string): Promise<boolean> =>
      transaction(pool, async (c) => {
        const { rowCount } = await c.query("UPDATE dashboard_users SET password_hash = NULL, vouched_by = NULL WHERE email = $1 AND vouched_by IS NOT NULL", [
          email,
        ]);
        if (!rowCount) return false;
        await c.query("DELETE FROM dashboard_links WHERE email = $1", [email]);
        await c.query("DELETE FROM dashboard_sessions WHERE email = $1", [email]);
        return true;
      }),
    // Expired sessions of everyone go when anyone signs in: no timer, and the table stays small.
    createSession: (s: DashboardSession): Promise<void> =>
      transaction(pool, async (c) => {
        await c.query("DELETE FROM dashboard_sessions WHERE expires_at <= $1", [s.createdAt]);
        await c.query("INSERT INTO dashboard_sessions (hash, email, created_at, expires_at, last_seen_at) VALUES ($1, $2, $3, $4, $3)", [
          s.hash,
          s.email,
          s.createdAt,
          s.expiresAt,
        ]);
      }),
    async findSession(hash: string, now: number): Promise<DashboardUser | undefined> {
      const { rows } = await query<UserRow>(
        pool,
        `SELECT u.* FROM dashboard_sessions s JOIN dashboard_users u ON u.email = s.email
        WHERE s.hash = $1 AND s.expires_at > $2`,
        [hash, now],
      );
      return rows[0] && fromRow(rows[0]);
    },
    // One round trip; the UPDATE matches a row only when the recorded use is old, so most requests only read.
    async useSession(hash: string, now: number, idleSince: number, seenEveryMs: number): Promise<DashboardUser | undefined> {
      const { rows } = await query<UserRow>(
        pool,
        `WITH s AS (SELECT hash, email, last_seen_at FROM dashboard_sessions WHERE hash = $1 AND expires_at > $2 AND last_seen_at > $3),
        seen AS (UPDATE dashboard_sessions d SET last_seen_at = GREATEST(d.last_seen_at, $2) FROM s
          WHERE d.hash = s.hash AND s.last_seen_at <= $2::bigint - $4::bigint)
        SELECT u.* FROM s JOIN dashboard_users u ON u.email = s.email`,
        [hash, now, idleSince, seenEveryMs],
      );
      return rows[0] && fromRow(rows[0]);
    },
    async deleteSession(hash: string): Promise<void> {
      await query(pool, "DELETE FROM dashboard_sessions WHERE hash = $1", [hash]);
    },
    createSignInLink: (hash: string, email: string, expiresAt: number, vouchedBy: string | null): Promise<void> =>
      transaction(pool, async (c) => {
        await c.query("DELETE FROM dashboard_links WHERE email = $1", [email]);
        await c.query("INSERT INTO dashboard_links (hash, email, expires_at, vouched_by) VALUES ($1, $2, $3, $4)", [hash, email, expiresAt, vouchedBy]);
      }),
    // DELETE ... RETURNING: two processes given the same link cannot both get the email.
    async takeSignInLink(hash: string, now: number): Promise<TakenLink | undefined> {
      const { rows } = await query<{ email: string; expires_at: string; vouched_by: string | null }>(
        pool,
        "DELETE FROM dashboard_links WHERE hash = $1 RETURNING email, expires_at, vouched_by",
        [hash],
      );
      const row = rows[0];
      return row && Number(row.expires_at) > now ? { email: row.email, vouchedBy: row.vouched_by } : undefined;
    },
  };
}

/**
 * Dashboard users, sessions and one-time sign-in links on PostgreSQL: the same rows as SQLite
 * (sqlite/dashboard.ts). Deleting a user cascades to its sessions and links. Tokens arrive
 * here hashed.
 */
import type pg from "pg";
import type { DashboardSession, DashboardUser } from "../dashboard.js";
import { query, transaction } from "./db.js";

interface UserRow {
  email: string;
  account: string;
  admin: boolean;
  password_hash: string | null;
  created_at: string;
}

const fromRow = (r: UserRow): DashboardUser => ({
  email: r.email,
  account: r.account,
  admin: r.admin,
  passwordHash: r.password_hash,
  createdAt: Number(r.created_at),
});

export function pgDashboard(pool: pg.Pool) {
  return {
    async createUser(u: DashboardUser): Promise<void> {
      await query(pool, "INSERT INTO dashboard_users (email, account, admin, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)", [
        u.email,
        u.account,
        u.admin,
        u.passwordHash,
        u.createdAt,
      ]);
    },
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
    setPassword: (email: string, passwordHash: string): Promise<void> =>
      transaction(pool, async (c) => {
        await c.query("UPDATE dashboard_users SET password_hash = $1 WHERE email = $2", [passwordHash, email]);
        await c.query("DELETE FROM dashboard_sessions WHERE email = $1", [email]);
      }),
    // Expired sessions of everyone go when anyone signs in: no timer, and the table stays small.
    createSession: (s: DashboardSession): Promise<void> =>
      transaction(pool, async (c) => {
        await c.query("DELETE FROM dashboard_sessions WHERE expires_at <= $1", [s.createdAt]);
        await c.query("INSERT INTO dashboard_sessions (hash, email, created_at, expires_at) VALUES ($1, $2, $3, $4)", [
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
    async deleteSession(hash: string): Promise<void> {
      await query(pool, "DELETE FROM dashboard_sessions WHERE hash = $1", [hash]);
    },
    createSignInLink: (hash: string, email: string, expiresAt: number): Promise<void> =>
      transaction(pool, async (c) => {
        await c.query("DELETE FROM dashboard_links WHERE email = $1", [email]);
        await c.query("INSERT INTO dashboard_links (hash, email, expires_at) VALUES ($1, $2, $3)", [hash, email, expiresAt]);
      }),
    // DELETE ... RETURNING: two processes given the same link cannot both get the email.
    async takeSignInLink(hash: string, now: number): Promise<string | undefined> {
      const { rows } = await query<{ email: string; expires_at: string }>(pool, "DELETE FROM dashboard_links WHERE hash = $1 RETURNING email, expires_at", [
        hash,
      ]);
      return rows[0] && Number(rows[0].expires_at) > now ? rows[0].email : undefined;
    },
  };
}

/**
 * Dashboard users, sessions and one-time sign-in links on SQLite (docs/dashboard.md). Deleting a
 * user cascades to its sessions and links (foreign keys are on). Tokens arrive here hashed.
 */
import type Database from "better-sqlite3";
import { writeTransaction } from "./tx.js";
import type { Role } from "../../core/roles.js";
import type { DashboardSession, DashboardUser, Membership, TakenLink } from "../dashboard.js";

interface UserRow {
  email: string;
  account: string;
  admin: number;
  password_hash: string | null;
  created_at: number;
  vouched_by: string | null;
}

const fromRow = (r: UserRow): DashboardUser => ({
  email: r.email,
  account: r.account,
  admin: r.admin === 1,
  passwordHash: r.password_hash,
  createdAt: r.created_at,
  vouchedBy: r.vouched_by,
});

export function sqliteDashboard(db: Database.Database) {
  const s = {
    insertUser: db.prepare("INSERT INTO dashboard_users (email, account, admin, password_hash, created_at, vouched_by) VALUES (?, ?, ?, ?, ?, ?)"),
    user: db.prepare("SELECT * FROM dashboard_users WHERE email = ?"),
    users: db.prepare("SELECT * FROM dashboard_users ORDER BY email"),
    removeUser: db.prepare("DELETE FROM dashboard_users WHERE email = ?"),
    setPassword: db.prepare("UPDATE dashboard_users SET password_hash = ?, vouched_by = ? WHERE email = ?"),
    vouch: db.prepare("UPDATE dashboard_users SET password_hash = NULL, vouched_by = NULL WHERE email = ? AND vouched_by IS NOT NULL"),
    endSessions: db.prepare("DELETE FROM dashboard_sessions WHERE email = ?"),
    insertSession: db.prepare(
      "INSERT INTO dashboard_sessions (hash, email, created_at, expires_at, last_seen_at) VALUES (@hash, @email, @createdAt, @expiresAt, @createdAt)",
    ),
    session: db.prepare(`SELECT u.* FROM dashboard_sessions s JOIN dashboard_users u ON u.email = s.email
      WHERE s.hash = ? AND s.expires_at > ?`),
    usedSession: db.prepare(`SELECT u.*, s.last_seen_at AS seen FROM dashboard_sessions s JOIN dashboard_users u ON u.email = s.email
      WHERE s.hash = ? AND s.expires_at > ? AND s.last_seen_at > ?`),
    seeSession: db.prepare("UPDATE dashboard_sessions SET last_seen_at = MAX(last_seen_at, ?) WHERE hash = ?"),
    deleteSession: db.prepare("DELETE FROM dashboard_sessions WHERE hash = ?"),
    // Expired sessions of everyone go when anyone signs in: no timer, and the table stays small.
    pruneSessions: db.prepare("DELETE FROM dashboard_sessions WHERE expires_at <= ?"),
    dropLinks: db.prepare("DELETE FROM dashboard_links WHERE email = ?"),
    insertLink: db.prepare("INSERT INTO dashboard_links (hash, email, expires_at, vouched_by) VALUES (?, ?, ?, ?)"),
    takeLink: db.prepare("DELETE FROM dashboard_links WHERE hash = ? RETURNING email, expires_at, vouched_by"),
    memberships: db.prepare("SELECT email, account, role, created_at AS createdAt FROM memberships WHERE email = ? ORDER BY created_at, account"),
    members: db.prepare("SELECT email, account, role, created_at AS createdAt FROM memberships WHERE account = ? ORDER BY email"),
    setMembership: db.prepare(`INSERT INTO memberships (email, account, role, created_at) VALUES (@email, @account, @role, @createdAt)
      ON CONFLICT (email, account) DO UPDATE SET role = excluded.role`),
    removeMembership: db.prepare("DELETE FROM memberships WHERE email = ? AND account = ?"),
  };
  const createUser = writeTransaction(db, (u: DashboardUser, role: Role) => {
    s.insertUser.run(u.email, u.account, u.admin ? 1 : 0, u.passwordHash, u.createdAt, u.vouchedBy);
    s.setMembership.run({ email: u.email, account: u.account, role, createdAt: u.createdAt });
  });
  const setPassword = writeTransaction(db, (email: string, hash: string, vouchedBy: string | null) => {
    s.setPassword.run(hash, vouchedBy, email);
    s.endSessions.run(email);
  });
  const vouchForUser = writeTransaction(db, (email: string) => {
    if (s.vouch.run(email).changes === 0) return false;
    s.dropLinks.run(email);
    s.endSessions.run(email);
    return true;
  });
  const createLink = writeTransaction(db, (hash: string, email: string, expiresAt: number, vouchedBy: string | null) => {
    s.dropLinks.run(email);
    s.insertLink.run(hash, email, expiresAt, vouchedBy);
  });
  const createSession = writeTransaction(db, (session: DashboardSession) => {
    s.pruneSessions.run(session.createdAt);
    s.insertSession.run(session);
  });
  // Writes stay synchronous so an audited call can run them inside its transaction (src/store/audit.ts).
  return {
    createUser: (u: DashboardUser, role: Role = "owner") => createUser(u, role),
    memberships: async (email: string) => s.memberships.all(email) as Membership[],
    listMembers: async (account: string) => s.members.all(account) as Membership[],
    setMembership: (m: Membership) => void s.setMembership.run(m),
    removeMembership: (email: string, account: string) => s.removeMembership.run(email, account).changes > 0,
    findUser: async (email: string) => {
      const row = s.user.get(email) as UserRow | undefined;
      return row && fromRow(row);
    },
    listUsers: async () => (s.users.all() as UserRow[]).map(fromRow),
    removeUser: (email: string) => s.removeUser.run(email).changes > 0,
    setPassword: (email: string, passwordHash: string, vouchedBy: string | null) => setPassword(email, passwordHash, vouchedBy),
    vouchForUser: (email: string) => vouchForUser(email),
    createSession: (session: DashboardSession) => createSession(session),
    findSession: async (hash: string, now: number) => {
      const row = s.session.get(hash, now) as UserRow | undefined;
      return row && fromRow(row);
    },
    // Read first, write only when the recorded use is old: most requests only read.
    useSession: (hash: string, now: number, idleSince: number, seenEveryMs: number) => {
      const row = s.usedSession.get(hash, now, idleSince) as (UserRow & { seen: number }) | undefined;
      if (!row) return undefined;
      if (row.seen <= now - seenEveryMs) s.seeSession.run(now, hash);
      return fromRow(row);
    },
    deleteSession: (hash: string) => void s.deleteSession.run(hash),
    createSignInLink: (hash: string, email: string, expiresAt: number, vouchedBy: string | null) => createLink(hash, email, expiresAt, vouchedBy),
    // DELETE ... RETURNING: two requests with the same link cannot both get the email.
    takeSignInLink: async (hash: string, now: number): Promise<TakenLink | undefined> => {
      const row = s.takeLink.get(hash) as { email: string; expires_at: number; vouched_by: string | null } | undefined;
      return row && row.expires_at > now ? { email: row.email, vouchedBy: row.vouched_by } : undefined;
    },
  };
}

/** The dashboard's users, their memberships, sessions and one-time sign-in links (hashes of tokens only). */
import type { Role } from "../core/roles.js";

/**
 * A dashboard user. `account` is the one they were added with (their home account, where the
 * dashboard opens); memberships say every account they belong to and their role in each. An
 * `admin` is an instance administrator: every account, whatever the memberships say.
 */
export interface DashboardUser {
  email: string;
  account: string;
  admin: boolean;
  /** scrypt hash (src/dashboard/password.ts); null until the user chose a password through a sign-in link. */
  passwordHash: string | null;
  createdAt: number;
  /**
   * Who vouched for the person holding this user's password (docs/dashboard.md "Invitations"):
   * null, the operator (the CLI), an instance administrator or single sign-on; else the account
   * whose owner's Add member made the user and got the link that set the password. Such a user
   * reaches only that account until the operator's link or single sign-on vouches for them.
   */
  vouchedBy: string | null;
}

/** A sign-in link taken: whose it was, and who vouched for its holder (the user's `vouchedBy` once it sets a password). */
export interface TakenLink {
  email: string;
  vouchedBy: string | null;
}

/** A signed-in browser: the SHA-256 of its cookie's token, never the token. Its last use starts at `createdAt`. */
export interface DashboardSession {
  hash: string;
  email: string;
  createdAt: number;
  expiresAt: number;
}

/** One user's place in one account. */
export interface Membership {
  email: string;
  account: string;
  role: Role;
  createdAt: number;
}

export interface DashboardStore {
  /** Refuses an email that exists (a unique constraint error). Also makes the user a member of `user.account` with `role` (default owner). */
  createUser(user: DashboardUser, role?: Role): Promise<void>;
  /** Every account the user belongs to, oldest membership first. */
  memberships(email: string): Promise<Membership[]>;
  /** The account's members, by email. */
  listMembers(account: string): Promise<Membership[]>;
  /** Adds the user to the account, or changes their role there (the user must exist). */
  setMembership(m: Membership): Promise<void>;
  /** False when the user was not a member. The user and their keys remain. */
  removeMembership(email: string, account: string): Promise<boolean>;
  findUser(email: string): Promise<DashboardUser | undefined>;
  listUsers(): Promise<DashboardUser[]>;
  /** Deletes the user with its sessions and links; false when there was none. */
  removeUser(email: string): Promise<boolean>;
  /**
   * Sets the password hash and who vouched for it (the link's `vouchedBy`), and ends every session
   * of the user (a reset signs out everywhere).
   */
  setPassword(email: string, passwordHash: string, vouchedBy: string | null): Promise<void>;
  /**
   * Single sign-on vouched for a user some account's owner invited: the password that invitation
   * set (and any sign-in link) goes, `vouchedBy` becomes null, every session ends. False when the
   * user was vouched for already (nothing changed).
   */
  vouchForUser(email: string): Promise<boolean>;
  createSession(session: DashboardSession): Promise<void>;
  /** The session's user while the session has not expired at `now`. */
  findSession(hash: string, now: number): Promise<DashboardUser | undefined>;
  /**
   * A request of a signed-in browser: the session's user while it has not expired at `now` and
   * was last used after `idleSince` (docs/dashboard.md, "Sessions"). The use is recorded at
   * `now` only when the recorded one is `seenEveryMs` old or older, so an active session writes
   * once in that while, not on every request.
   */
  useSession(hash: string, now: number, idleSince: number, seenEveryMs: number): Promise<DashboardUser | undefined>;
  deleteSession(hash: string): Promise<void>;
  /** A new sign-in link replaces the user's earlier ones. `vouchedBy`: null from the operator or an instance administrator, else the inviting account. */
  createSignInLink(hash: string, email: string, expiresAt: number, vouchedBy: string | null): Promise<void>;
  /** Deletes the link and returns whose it was if it had not expired at `now`: single use. */
  takeSignInLink(hash: string, now: number): Promise<TakenLink | undefined>;
}

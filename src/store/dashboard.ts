/** The dashboard's users, their sessions and one-time sign-in links (hashes of tokens only). */

/** A dashboard user: one account; an admin sees every account. */
export interface DashboardUser {
  email: string;
  account: string;
  admin: boolean;
  /** scrypt hash (src/dashboard/password.ts); null until the user chose a password through a sign-in link. */
  passwordHash: string | null;
  createdAt: number;
}

/** A signed-in browser: the SHA-256 of its cookie's token, never the token. */
export interface DashboardSession {
  hash: string;
  email: string;
  createdAt: number;
  expiresAt: number;
}

export interface DashboardStore {
  /** Refuses an email that exists (a unique constraint error). */
  createUser(user: DashboardUser): Promise<void>;
  findUser(email: string): Promise<DashboardUser | undefined>;
  listUsers(): Promise<DashboardUser[]>;
  /** Deletes the user with its sessions and links; false when there was none. */
  removeUser(email: string): Promise<boolean>;
  /** Sets the password hash and ends every session of the user (a reset signs out everywhere). */
  setPassword(email: string, passwordHash: string): Promise<void>;
  createSession(session: DashboardSession): Promise<void>;
  /** The session's user while the session has not expired at `now`. */
  findSession(hash: string, now: number): Promise<DashboardUser | undefined>;
  deleteSession(hash: string): Promise<void>;
  /** A new sign-in link replaces the user's earlier ones. */
  createSignInLink(hash: string, email: string, expiresAt: number): Promise<void>;
  /** Deletes the link and returns its user's email if it had not expired at `now`: single use. */
  takeSignInLink(hash: string, now: number): Promise<string | undefined>;
}

/**
 * The SQLite migrations of issue 39's accounts work (docs/dashboard.md, docs/cli.md "Keys"), in
 * order after migrations.ts's earlier ones; the same append-only rule applies.
 */
export const accountMigrations: string[] = [
  // Key names are unique per account, not across accounts (docs/cli.md "Keys"). SQLite cannot drop
  // a column's UNIQUE, so the table is rebuilt with the same columns, checks and foreign key, in
  // the migration's transaction (nothing references keys, so dropping the old one is safe).
  `CREATE TABLE keys_by_account (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     account TEXT NOT NULL REFERENCES accounts(id),
     hash TEXT NOT NULL UNIQUE,
     last4 TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER,
     revoked_at INTEGER,
     last_used_at INTEGER,
     rpm INTEGER,
     budget INTEGER CHECK (budget >= 0),
     budget_period TEXT NOT NULL DEFAULT 'total' CHECK (budget_period IN ('day', 'week', 'month', 'total')),
     spent INTEGER NOT NULL DEFAULT 0,
     spent_since INTEGER NOT NULL DEFAULT 0,
     cache TEXT NOT NULL DEFAULT 'off' CHECK (cache IN ('off', 'on', 'nondeterministic')),
     created_by TEXT,
     UNIQUE (account, name)
   ) STRICT;
   INSERT INTO keys_by_account (id, name, account, hash, last4, created_at, expires_at, revoked_at, last_used_at, rpm,
       budget, budget_period, spent, spent_since, cache, created_by)
     SELECT id, name, account, hash, last4, created_at, expires_at, revoked_at, last_used_at, rpm,
       budget, budget_period, spent, spent_since, cache, created_by FROM keys;
   DROP TABLE keys;
   ALTER TABLE keys_by_account RENAME TO keys;`,
  // A member's own key whose limits an owner or admin set (docs/dashboard.md "Budgets and key
  // limits"): the member may tighten them, never loosen them. Keys from before count as set so
  // when the audit log shows someone other than their creator updating them.
  `ALTER TABLE keys ADD COLUMN limits_by_manager INTEGER NOT NULL DEFAULT 0 CHECK (limits_by_manager IN (0, 1));
   UPDATE keys SET limits_by_manager = 1 WHERE created_by IS NOT NULL AND EXISTS (
     SELECT 1 FROM audit_log a WHERE a.action = 'key.update' AND a.target = keys.id AND a.actor <> keys.created_by);`,
  // Invitations (docs/dashboard.md "Invitations"): who vouched for the holder of a user's password
  // and of a sign-in link (null: the operator, an instance administrator, single sign-on; else the
  // account whose owner's Add member made the user). Users from before count as an owner's when
  // the audit log's latest user.add for them is by a dashboard user who is not an instance
  // administrator, unless a password was set after a later `users reset`; their outstanding link
  // is that owner's unless a reset replaced it.
  `ALTER TABLE dashboard_users ADD COLUMN vouched_by TEXT;
   ALTER TABLE dashboard_links ADD COLUMN vouched_by TEXT;
   UPDATE dashboard_users SET vouched_by = account WHERE admin = 0 AND email IN (
     SELECT a.target FROM audit_log a
     WHERE a.action = 'user.add'
       AND a.id = (SELECT MAX(b.id) FROM audit_log b WHERE b.action = 'user.add' AND b.target = a.target)
       AND a.actor NOT LIKE 'cli:%' AND a.actor NOT LIKE 'sso:%'
       AND a.actor NOT IN (SELECT email FROM dashboard_users WHERE admin = 1)
       AND NOT EXISTS (SELECT 1 FROM audit_log r JOIN audit_log p ON p.target = r.target AND p.action = 'user.password' AND p.id > r.id
         WHERE r.action = 'user.reset' AND r.target = a.target AND r.id > a.id));
   UPDATE dashboard_links SET vouched_by = (SELECT u.vouched_by FROM dashboard_users u WHERE u.email = dashboard_links.email)
     WHERE NOT EXISTS (SELECT 1 FROM audit_log r WHERE r.action = 'user.reset' AND r.target = dashboard_links.email
       AND r.id > (SELECT MAX(a.id) FROM audit_log a WHERE a.action = 'user.add' AND a.target = dashboard_links.email));`,
];

/**
 * The PostgreSQL migrations of issue 39's accounts work, as SQLite's (src/store/sqlite/
 * migrations-accounts.ts), in order after the earlier ones; the same append-only rule applies.
 */
export const accountMigrations: string[] = [
  // Key names are unique per account, not across accounts (docs/cli.md "Keys").
  `ALTER TABLE keys DROP CONSTRAINT keys_name_key;
   ALTER TABLE keys ADD CONSTRAINT keys_account_name_key UNIQUE (account, name);`,
  // A member's own key whose limits an owner or admin set, as SQLite's.
  `ALTER TABLE keys ADD COLUMN limits_by_manager boolean NOT NULL DEFAULT false;
   UPDATE keys SET limits_by_manager = true WHERE created_by IS NOT NULL AND EXISTS (
     SELECT 1 FROM audit_log a WHERE a.action = 'key.update' AND a.target = keys.id AND a.actor <> keys.created_by);`,
  // Invitations: who vouched for the holder of a user's password and of a sign-in link, as SQLite's.
  `ALTER TABLE dashboard_users ADD COLUMN vouched_by text;
   ALTER TABLE dashboard_links ADD COLUMN vouched_by text;
   UPDATE dashboard_users SET vouched_by = account WHERE admin = false AND email IN (
     SELECT a.target FROM audit_log a
     WHERE a.action = 'user.add'
       AND a.id = (SELECT MAX(b.id) FROM audit_log b WHERE b.action = 'user.add' AND b.target = a.target)
       AND a.actor NOT LIKE 'cli:%' AND a.actor NOT LIKE 'sso:%'
       AND a.actor NOT IN (SELECT email FROM dashboard_users WHERE admin = true)
       AND NOT EXISTS (SELECT 1 FROM audit_log r JOIN audit_log p ON p.target = r.target AND p.action = 'user.password' AND p.id > r.id
         WHERE r.action = 'user.reset' AND r.target = a.target AND r.id > a.id));
   UPDATE dashboard_links SET vouched_by = (SELECT u.vouched_by FROM dashboard_users u WHERE u.email = dashboard_links.email)
     WHERE NOT EXISTS (SELECT 1 FROM audit_log r WHERE r.action = 'user.reset' AND r.target = dashboard_links.email
       AND r.id > (SELECT MAX(a.id) FROM audit_log a WHERE a.action = 'user.add' AND a.target = dashboard_links.email));`,
];

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
];

/**
 * The PostgreSQL migrations of issue 39's accounts work, as SQLite's (src/store/sqlite/
 * migrations-accounts.ts), in order after the earlier ones; the same append-only rule applies.
 */
export const accountMigrations: string[] = [
  // Key names are unique per account, not across accounts (docs/cli.md "Keys").
  `ALTER TABLE keys DROP CONSTRAINT keys_name_key;
   ALTER TABLE keys ADD CONSTRAINT keys_account_name_key UNIQUE (account, name);`,
];

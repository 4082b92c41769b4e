/**
 * The SQLite migrations of the MCP gateway (docs/mcp.md), in order after migrations.ts's earlier
 * ones; the same append-only rule applies. A key's grant is a JSON array on its row (null: none);
 * servers added with `gateway mcp add` keep their headers sealed (store/sealed.ts); an account's
 * narrowing is one row per server and tool glob; a tool call's ledger row (endpoint `mcp`) adds
 * the bytes it sent and received (its arguments and results are never stored).
 */
export const mcpMigrations: string[] = [
  `ALTER TABLE keys ADD COLUMN mcp TEXT;
   CREATE TABLE mcp_servers (
     name TEXT PRIMARY KEY,
     url TEXT NOT NULL,
     headers BLOB,
     header_names TEXT NOT NULL DEFAULT '[]',
     tools TEXT,
     timeout_ms INTEGER CHECK (timeout_ms > 0),
     price_per_call INTEGER CHECK (price_per_call >= 0),
     created_at INTEGER NOT NULL
   ) STRICT;
   CREATE TABLE mcp_grants (
     account TEXT NOT NULL,
     server TEXT NOT NULL,
     tools TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (account, server, tools)
   ) STRICT;
   ALTER TABLE ledger ADD COLUMN bytes_in INTEGER CHECK (bytes_in >= 0);
   ALTER TABLE ledger ADD COLUMN bytes_out INTEGER CHECK (bytes_out >= 0);`,
];

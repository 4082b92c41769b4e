/**
 * Migration: the MCP gateway (docs/mcp.md), as SQLite's migrations-mcp.ts. A key's grant is a
 * jsonb array on its row; stored servers keep their headers sealed (store/sealed.ts); an
 * account's narrowing is one row per server and tool glob. A tool call's ledger row adds its
 * bytes in and out: gw_settle_batch (whatever its current version, kept as
 * gw_settle_batch_mcp_rows) writes the rows, the new one then sets the two columns for the
 * entries that carry them, in the same transaction, as migrations-reported.ts does.
 */
export const mcpMigrations: string[] = [
  `ALTER TABLE keys ADD COLUMN mcp jsonb;
   CREATE TABLE mcp_servers (
     name text PRIMARY KEY,
     url text NOT NULL,
     headers bytea,
     header_names jsonb NOT NULL DEFAULT '[]',
     tools jsonb,
     timeout_ms integer CHECK (timeout_ms > 0),
     price_per_call bigint CHECK (price_per_call >= 0),
     created_at bigint NOT NULL
   );
   CREATE TABLE mcp_grants (
     account text NOT NULL,
     server text NOT NULL,
     tools text NOT NULL,
     created_at bigint NOT NULL,
     PRIMARY KEY (account, server, tools)
   );
   ALTER TABLE ledger
     ADD COLUMN bytes_in bigint CHECK (bytes_in >= 0),
     ADD COLUMN bytes_out bigint CHECK (bytes_out >= 0);
   ALTER FUNCTION gw_settle_batch(jsonb) RENAME TO gw_settle_batch_mcp_rows;
   CREATE FUNCTION gw_settle_batch(p_items jsonb) RETURNS bigint[] LANGUAGE plpgsql AS $fn$
   DECLARE v_out bigint[];
   BEGIN
     v_out := gw_settle_batch_mcp_rows(p_items);
     UPDATE ledger l SET bytes_in = (f.e->>'bytesIn')::bigint, bytes_out = (f.e->>'bytesOut')::bigint
       FROM (SELECT x->'e' AS e FROM jsonb_array_elements(p_items) x WHERE jsonb_typeof(x->'e'->'bytesIn') = 'number') f
       WHERE l.request_id = f.e->>'requestId' AND l.bytes_in IS NULL;
     RETURN v_out;
   END $fn$;`,
];

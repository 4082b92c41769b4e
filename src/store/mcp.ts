/**
 * The MCP gateway's state (docs/mcp.md): upstream servers added with `gateway mcp add` (their
 * header values sealed like BYOK keys, store/sealed.ts) and what an account narrows its keys'
 * grants to (`gateway mcp grant|revoke`). A key's own grant is a column of its key row
 * (KeyRecord.mcp). Servers from the config file are not stored.
 */

export interface McpServerRecord {
  name: string;
  url: string;
  /** The headers as JSON, sealed with the gateway secret (access/sealed.ts); null: none. */
  headers: Buffer | null;
  /** Header names only, so lists can say which are set without opening them. */
  headerNames: string[];
  tools: string[] | null;
  timeoutMs: number | null;
  /** nano-USD per call; null: free. */
  pricePerCall: number | null;
  createdAt: number;
}

/** One row of an account's narrowing: its keys may be granted `tools` (a glob) of `server`. */
export interface McpAccountGrant {
  account: string;
  server: string;
  tools: string;
  createdAt: number;
}

export interface McpStore {
  /** Every stored server, by name. */
  mcpServers(): Promise<McpServerRecord[]>;
  /** Inserts or replaces a server by name; grants naming it are kept (an update never strips them). */
  putMcpServer(server: McpServerRecord): Promise<void>;
  /** False when there was no such server. Grants naming it stay, resolving to nothing while it is gone. */
  removeMcpServer(name: string): Promise<boolean>;
  /** Account narrowing rows, by account, server, tools; one account's with `account`. */
  mcpGrants(account?: string): Promise<McpAccountGrant[]>;
  /** False when the same row was already there. */
  addMcpGrant(grant: McpAccountGrant): Promise<boolean>;
  /** False when there was no such row. */
  removeMcpGrant(account: string, server: string, tools: string): Promise<boolean>;
}

/**
 * Every upstream MCP server of one gateway process (docs/mcp.md): one UpstreamServer per name,
 * kept while its connection settings stay the same, replaced when they change, closed when the
 * server is removed; and the accounts' grant rows, cached until the store says something changed
 * (Store.watch: within 1 s on one host, 5 s across a fleet), as keys are.
 */
import type { Config } from "../config/config.js";
import type { KeyRecord, McpAccountGrant, Store } from "../store/index.js";
import { UpstreamServer } from "./client.js";
import { resolveAccess, type Access } from "./grants.js";
import { connectionOf, readServers, type McpServerSpec } from "./servers.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

export interface PoolDeps {
  config: Config;
  store: Store;
  secret: Buffer;
  now: () => number;
  warn: (line: string) => void;
}

/** A tool a key may call, with the server that serves it. */
export interface GrantedTool {
  server: UpstreamServer;
  tool: Tool;
}

/** How long listing waits for a slow server before listing the others without it. */
const LIST_WAIT_MS = 5_000;

export class McpPool {
  private servers = new Map<string, UpstreamServer>();
  private grants = new Map<string, Promise<McpAccountGrant[]>>();
  private reading: Promise<void> | null = null;
  private stale = false;

  constructor(private readonly deps: PoolDeps) {}

  /** Reads the servers (config and store) and opens connections to them in the background. */
  async start(): Promise<void> {
    await this.refresh();
    for (const s of this.servers.values()) void s.connect().catch(() => undefined);
  }

  /** The store changed (a grant, a server added or removed, a key): re-read what is cached. */
  invalidate(): void {
    this.grants.clear();
    if (this.reading) this.stale = true;
    else void this.refresh().catch((err: Error) => this.deps.warn(`[gateway] MCP servers could not be re-read (kept the ones in memory): ${err.message}`));
  }

  async refresh(): Promise<void> {
    if (this.reading) return this.reading;
    this.reading = this.apply(await readServers(this.deps.config, this.deps.store, this.deps.secret)).finally(() => (this.reading = null));
    await this.reading;
    if (this.stale) {
      this.stale = false;
      this.invalidate();
    }
  }

  private async apply(specs: McpServerSpec[]): Promise<void> {
    const next = new Map<string, UpstreamServer>();
    const retired: UpstreamServer[] = [];
    for (const spec of specs) {
      const had = this.servers.get(spec.name);
      const same = had && connectionOf(had.spec) === connectionOf(spec) && had.spec.problem === spec.problem;
      next.set(spec.name, same ? had.withSpec(spec) : this.open(spec));
      if (had && !same) retired.push(had);
    }
    for (const [name, s] of this.servers) if (!next.has(name)) retired.push(s);
    this.servers = next;
    await Promise.all(retired.map((s) => s.close()));
  }

  private open(spec: McpServerSpec): UpstreamServer {
    return new UpstreamServer(spec, { ttlMs: this.deps.config.mcp.toolsTtlMs, now: this.deps.now });
  }

  get(name: string): UpstreamServer | undefined {
    return this.servers.get(name);
  }

  list(): UpstreamServer[] {
    return [...this.servers.values()];
  }

  /** What `key` may call (mcp/grants.ts), with its account's rows as cached. */
  async access(key: KeyRecord): Promise<Access> {
    let rows = this.grants.get(key.account);
    if (!rows) {
      rows = this.deps.store.mcpGrants(key.account);
      this.grants.set(key.account, rows);
      rows.catch(() => this.grants.delete(key.account));
    }
    return resolveAccess(key.mcp, await rows, (name) => (this.servers.has(name) ? (this.servers.get(name)!.spec.tools ?? null) : undefined));
  }

  /**
   * The tools `access` allows on `only` (one server) or on every server, and how many of the
   * granted servers answered: a server that is down, slow or misconfigured is left out, not an error.
   */
  async granted(access: Access, only?: string): Promise<{ tools: GrantedTool[]; reachable: number }> {
    const names = [...access.servers].filter((n) => only === undefined || n === only);
    const lists = await Promise.all(names.map((n) => listWithin(this.servers.get(n)!, LIST_WAIT_MS)));
    const tools: GrantedTool[] = [];
    let reachable = 0;
    lists.forEach((list, i) => {
      if (!list) return;
      reachable++;
      const server = this.servers.get(names[i]!)!;
      for (const tool of list) if (access.allows(server.spec.name, tool.name)) tools.push({ server, tool });
    });
    return { tools, reachable };
  }

  async close(): Promise<void> {
    const all = this.list();
    this.servers.clear();
    await Promise.all(all.map((s) => s.close()));
  }
}

/** The server's tools, or null when it fails or takes longer than `ms`. */
function listWithin(server: UpstreamServer, ms: number): Promise<Tool[] | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(resolve, ms, null)));
  return Promise.race([server.listTools().catch(() => null), late]).finally(() => clearTimeout(timer));
}

/**
 * The Store contract for the MCP gateway (src/store/mcp.ts, KeyRecord.mcp, the ledger's bytes),
 * run on SQLite and PostgreSQL like store.cases.ts: servers replaced in place without losing the
 * grants that name them, account grants added once and removed, a key's grant set, changed and
 * cleared and read back by hash (what a running server reads), another connection told of a
 * change, and a tool call's ledger row with its bytes, settled with a hold and without.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import type { KeyRecord, McpServerRecord, Store } from "../../src/store/index.js";
import { ledgerEntry } from "../helpers/ledger-entry.js";
import { rows } from "../helpers/rows.js";
import type { StoreHarness } from "./store.cases.js";

const T0 = Date.UTC(2026, 10, 20, 12);

const server = (name: string, over: Partial<McpServerRecord> = {}): McpServerRecord => ({
  name,
  url: `https://${name}.example/mcp`,
  headers: null,
  headerNames: [],
  tools: null,
  timeoutMs: null,
  pricePerCall: null,
  createdAt: T0,
  ...over,
});

const key = (id: string, mcp: string[] | null): KeyRecord => ({
  id,
  name: id,
  account: "acme",
  hash: `hash-${id}`,
  last4: "abcd",
  createdAt: T0,
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  rpm: null,
  mcp,
});

export function mcpStoreCases(make: () => Promise<StoreHarness>): void {
  let h: StoreHarness;
  let store: Store;
  beforeEach(async () => void (store = await (h = await make()).open()));
  afterEach(async () => {
    await store.close().catch(() => undefined);
    await h.drop();
  });

  describe("MCP servers and grants", () => {
    test("a server is stored with its sealed headers, replaced in place keeping the grants that name it, and removed", async () => {
      expect(await store.mcpServers()).toEqual([]);
      const sealed = Buffer.from([0, 1, 2, 250, 251, 255]);
      const gh = server("github", { headers: sealed, headerNames: ["Authorization"], tools: ["search_*"], timeoutMs: 5_000, pricePerCall: 2_000_000 });
      await store.putMcpServer(gh);
      await store.putMcpServer(server("db"));
      expect(await store.mcpServers()).toEqual([server("db"), gh]);
      expect(await store.addMcpGrant({ account: "acme", server: "github", tools: "search_*", createdAt: T0 })).toBe(true);
      // An update of the server never strips a grant (LiteLLM #30476).
      const updated = server("github", { url: "https://gh2.example/mcp", createdAt: T0 + 5 });
      await store.putMcpServer(updated);
      expect((await store.mcpServers()).find((s) => s.name === "github")).toEqual({ ...updated, createdAt: T0 });
      expect(await store.mcpGrants("acme")).toEqual([{ account: "acme", server: "github", tools: "search_*", createdAt: T0 }]);
      expect(await store.removeMcpServer("github")).toBe(true);
      expect(await store.removeMcpServer("github")).toBe(false);
      expect((await store.mcpServers()).map((s) => s.name)).toEqual(["db"]);
    });

    test("account grants are added once, listed per account and removed", async () => {
      const g = (account: string, srv: string, tools: string) => ({ account, server: srv, tools, createdAt: T0 });
      expect(await store.addMcpGrant(g("acme", "github", "*"))).toBe(true);
      expect(await store.addMcpGrant(g("acme", "github", "*"))).toBe(false);
      expect(await store.addMcpGrant(g("acme", "fs", "read_*"))).toBe(true);
      expect(await store.addMcpGrant(g("other", "fs", "*"))).toBe(true);
      expect(await store.mcpGrants("acme")).toEqual([g("acme", "fs", "read_*"), g("acme", "github", "*")]);
      expect((await store.mcpGrants()).length).toBe(3);
      expect(await store.removeMcpGrant("acme", "fs", "read_*")).toBe(true);
      expect(await store.removeMcpGrant("acme", "fs", "read_*")).toBe(false);
      expect(await store.mcpGrants("acme")).toEqual([g("acme", "github", "*")]);
    });

    test("a key's grant is kept on its row: created, changed, cleared, and read back by hash at once (LiteLLM #35662)", async () => {
      await store.ensureAccount("acme", T0);
      await store.createKey(key("k1", ["github:*", "fs:read_*"]));
      await store.createKey(key("k2", null));
      expect((await store.findKeyByHash("hash-k1"))!.mcp).toEqual(["github:*", "fs:read_*"]);
      expect((await store.findKeyByHash("hash-k2"))!.mcp ?? null).toBeNull();
      await store.updateKey("k2", { mcp: ["db:query"] }, T0);
      expect((await store.findKeyByHash("hash-k2"))!.mcp).toEqual(["db:query"]);
      await store.updateKey("k1", { rpm: 10 }, T0);
      expect((await store.findKey("k1"))!.mcp).toEqual(["github:*", "fs:read_*"]);
      await store.updateKey("k1", { mcp: null }, T0);
      expect((await store.findKey("k1"))!.mcp ?? null).toBeNull();
    });

    test("another connection is told of a grant change and reads it", async () => {
      const other = await h.open();
      try {
        let heard = 0;
        const stop = other.watch(() => heard++);
        await store.addMcpGrant({ account: "acme", server: "github", tools: "*", createdAt: T0 });
        await expect.poll(() => heard, { timeout: 5_000 }).toBeGreaterThan(0);
        stop();
        expect((await other.mcpGrants("acme")).map((g) => g.tools)).toEqual(["*"]);
      } finally {
        await other.close();
      }
    });

    test("a tool call's ledger row keeps its bytes in and out, with a hold and without", async () => {
      await store.addCredits("acme", 1_000_000n, T0);
      const call = (requestId: string) =>
        ledgerEntry({
          requestId,
          account: "acme",
          cost: 1_000,
          createdAt: T0,
          model: "github/search",
          provider: "github",
          endpoint: "mcp",
          bytesIn: 120,
          bytesOut: 4_096,
        });
      await store.settle(null, call("mcp-1"), []);
      expect(await store.reserve("hold-mcp", "acme", 1_000)).toBe(true);
      await store.settle("hold-mcp", call("mcp-2"), []);
      await store.settle(null, ledgerEntry({ requestId: "chat-1", account: "acme", cost: 5, createdAt: T0 }), []);
      const got = await rows<{ request_id: string; endpoint: string; bytes_in: number | null; bytes_out: number | null }>(
        h.db,
        "SELECT request_id, endpoint, bytes_in, bytes_out FROM ledger ORDER BY request_id",
      );
      expect(
        got.map((r) => [r.request_id, r.endpoint, r.bytes_in === null ? null : Number(r.bytes_in), r.bytes_out === null ? null : Number(r.bytes_out)]),
      ).toEqual([
        ["chat-1", "chat", null, null],
        ["mcp-1", "mcp", 120, 4_096],
        ["mcp-2", "mcp", 120, 4_096],
      ]);
      expect(await store.balance("acme")).toBe(1_000_000n - 2_005n);
    });
  });
}

/**
 * Grant resolution (src/mcp/grants.ts, docs/mcp.md "Grants"): deny by default, and the
 * intersection of the key's grant, its account's narrowing and the server's own `tools`.
 * Pure functions: no server needed (the endpoint tests show the same answers over /mcp).
 */
import { describe, expect, test } from "vitest";
import { emptyReason, parseGrantList, resolveAccess } from "../src/mcp/grants.js";
import type { McpAccountGrant } from "../src/store/index.js";

const servers: Record<string, string[] | null> = { github: null, fs: ["read_*", "list_dir"] };
const tools = (s: string) => (s in servers ? servers[s] : undefined);
const row = (server: string, t: string): McpAccountGrant => ({ account: "acme", server, tools: t, createdAt: 0 });

describe("MCP grants", () => {
  test("no grant, or an empty one, allows nothing and says why", () => {
    for (const grant of [null, undefined, []]) {
      const a = resolveAccess(grant, [], tools);
      expect(a.allows("github", "search")).toBe(false);
      expect(emptyReason(grant, a, 2)).toMatch(/no MCP grant/);
    }
  });

  test("a tool-level grant allows that tool only, never its whole server (LiteLLM #33397)", () => {
    const a = resolveAccess(["github:search_*"], [], tools);
    expect(a.allows("github", "search_code")).toBe(true);
    expect(a.allows("github", "delete_repo")).toBe(false);
    expect(a.allows("fs", "read_file")).toBe(false);
  });

  test("the server's own tools limit every grant, a bare server name included", () => {
    const a = resolveAccess(parseGrantList("fs"), [], tools);
    expect(a.allows("fs", "read_file")).toBe(true);
    expect(a.allows("fs", "list_dir")).toBe(true);
    expect(a.allows("fs", "write_file")).toBe(false);
  });

  test("an account's narrowing intersects: none set is every server; set, only what it names", () => {
    const grant = ["github:*", "fs:*"];
    expect(resolveAccess(grant, [], tools).allows("github", "x")).toBe(true);
    const narrowed = resolveAccess(grant, [row("fs", "read_file")], tools);
    expect(narrowed.allows("github", "x")).toBe(false);
    expect(narrowed.allows("fs", "read_file")).toBe(true);
    expect(narrowed.allows("fs", "read_dir")).toBe(false);
    expect([...narrowed.servers]).toEqual(["fs"]);
  });

  test("a grant naming a server that is not configured reaches nothing, and says so", () => {
    const a = resolveAccess(["gitlab:*"], [], tools);
    expect(a.allows("gitlab", "x")).toBe(false);
    expect(emptyReason(["gitlab:*"], a, 2)).toMatch(/names no configured server/);
  });

  test("a --mcp value is parsed, normalized and checked", () => {
    expect(parseGrantList(" github:* , fs:read_*,fs:read_*, db")).toEqual(["github:*", "fs:read_*", "db:*"]);
    expect(() => parseGrantList("GitHub:*")).toThrow(/not <server>:<tool glob>/);
    expect(() => parseGrantList("fs:read file")).toThrow(/not <server>:<tool glob>/);
    expect(() => parseGrantList(",")).toThrow(/--no-mcp/);
  });
});

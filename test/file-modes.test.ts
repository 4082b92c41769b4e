/**
 * File modes (issue 10, item 10): the database and its WAL journals are created 0600 whatever
 * the umask, and `gateway serve` warns in one stderr line when a state file is wider.
 */
import { chmodSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { execa } from "execa";
import { describe, expect, test } from "vitest";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { assertBuilt, BIN, gateway, serve, tempDir } from "./helpers/cli.js";
import { useGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";

const modeOf = (file: string) => statSync(file).mode & 0o777;
const MODEL = "openai/gpt-4o-mini";

describe("a gateway on a fresh path", () => {
  const h = useGateway(
    (fakeUrl) => ({
      providers: { openai: { baseUrl: `${fakeUrl}/v1`, apiKey: "sk-platform-key-0001" } },
      models: [{ id: MODEL, pricing: { prompt: "0.15", completion: "0.6" }, endpoints: [{ provider: "openai", model: "gpt-4o-mini" }] }],
    }),
    { fallback: () => completion("ok") },
  );

  test("the database, its -wal and its -shm are 0600 while it serves", async () => {
    const res = await h.post({ model: MODEL, messages: [{ role: "user", content: "hi" }] }, bearer(h.key));
    expect(res.status).toBe(200);
    expect(process.umask() & 0o044, "this test means something only under a umask that lets files be read by others").toBe(0);
    for (const file of [h.gw.db, `${h.gw.db}-wal`, `${h.gw.db}-shm`]) expect([file, modeOf(file).toString(8)]).toEqual([file, "600"]);
  });
});

describe("the CLI and serve (child processes)", () => {
  test("under umask 277 (new files read-only for the owner) the database is still created 0600 and writable", async () => {
    assertBuilt();
    const dir = tempDir();
    const db = join(dir, "g.db");
    const r = await execa("sh", ["-c", `umask 277 && exec node "${BIN}" --db "${db}" keys create --name a --json`], {
      env: { GATEWAY_SECRET: "cli-test-secret", PATH: process.env.PATH ?? "" },
      extendEnv: false,
      reject: false,
    });
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(modeOf(db).toString(8)).toBe("600");
  });

  test("journals left wider than a private database are narrowed on open", async () => {
    const dir = tempDir();
    const db = join(dir, "g.db");
    await openSqliteStore(db).close();
    // Another connection keeps the WAL files alive, as a crash would leave them.
    const other = new Database(db);
    try {
      other.prepare("CREATE TABLE IF NOT EXISTS t (x)").run();
      chmodSync(`${db}-wal`, 0o644);
      chmodSync(`${db}-shm`, 0o644);
      await openSqliteStore(db).close();
      expect([modeOf(`${db}-wal`), modeOf(`${db}-shm`)].map((m) => m.toString(8))).toEqual(["600", "600"]);
    } finally {
      other.close();
    }
  });

  test("serve is quiet about a 0600 database and warns in one line about a 0644 one and a 0644 secret file", async () => {
    assertBuilt();
    const dir = tempDir();
    const db = join(dir, "g.db");
    expect((await gateway(["--db", db, "keys", "create", "--name", "a", "--json"], { cwd: dir })).exitCode).toBe(0);
    const stderrOf = async () => {
      // A provider key, so the only warning left to give is about file modes (not "no provider is usable").
      const { proc } = await serve(["--db", db], { cwd: dir, env: { OPENAI_API_KEY: "sk-file-modes" } });
      proc.kill("SIGTERM");
      return String((await proc).stderr);
    };
    expect(await stderrOf()).not.toContain("warning:");

    chmodSync(db, 0o644);
    writeFileSync(`${db}.secret`, "00".repeat(32), { mode: 0o644 });
    chmodSync(`${db}.secret`, 0o644);
    const warnings = (await stderrOf()).split("\n").filter((l) => l.startsWith("warning:"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${db} (0644)`);
    expect(warnings[0]).toContain(`${db}.secret (0644)`);
    expect(warnings[0]).toContain("chmod 600");
    // The operator's mode is reported, never changed behind their back.
    expect(modeOf(db).toString(8)).toBe("644");
  });
});

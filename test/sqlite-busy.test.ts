/**
 * Another writer on the SQLite file (`gateway db prune`, a backup tool, a second process)
 * must not turn answered requests into 500s (docs/limits.md, "Another writer on the file"):
 * every money-moving transaction takes the write lock first (BEGIN IMMEDIATE), so SQLite
 * waits out the busy timeout instead of refusing the lock upgrade at once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer, post } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";

let fake: FakeUpstream;
let gw: TestGateway;
let key: string;
beforeAll(async () => {
  fake = await startFakeUpstream(() => completion("ok"));
  gw = await startGateway(openaiConfig(fake.url));
  key = await gw.createKey();
  await gw.addCredits("100");
  await gw.store.ensureAccount("other", Date.now());
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

/**
 * A second connection committing short write transactions back to back, as a prune or an
 * admin tool does: each holds the lock a few milliseconds, so the gateway's snapshot is
 * almost always older than the last commit when it wants to write.
 */
function otherWriter(file: string): ChildProcess {
  const code = `
    const Database = require("better-sqlite3");
    const db = new Database(${JSON.stringify(file)});
    db.pragma("busy_timeout = 5000");
    const bump = db.prepare("UPDATE accounts SET created_at = created_at WHERE id = 'other'");
    const pause = new Int32Array(new SharedArrayBuffer(4));
    process.send("ready");
    for (;;) {
      db.exec("BEGIN IMMEDIATE");
      bump.run();
      Atomics.wait(pause, 0, 0, 3);
      db.exec("COMMIT");
      Atomics.wait(pause, 0, 0, 1);
    }`;
  return spawn(process.execPath, ["-e", code], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
}

test("JSON requests beside another writer: no 500, every 200 has its ledger row", async () => {
  const writer = otherWriter(gw.db);
  await new Promise((ready) => writer.once("message", ready));
  const statuses: number[] = [];
  try {
    for (let round = 0; round < 10; round++) {
      const batch = Array.from({ length: 20 }, () =>
        post(gw.url, "/v1/chat/completions", { model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }] }, bearer(key)).then(async (r) => {
          await r.arrayBuffer();
          return r.status;
        }),
      );
      statuses.push(...(await Promise.all(batch)));
    }
  } finally {
    writer.kill();
  }
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  const [ledger] = await rows<{ n: number }>(gw.db, "SELECT COUNT(*) AS n FROM ledger WHERE status = 'ok' AND cost > 0");
  expect(ledger!.n).toBe(statuses.length);
}, 60_000);

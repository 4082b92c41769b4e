/**
 * `gateway alerts add|list|remove|thresholds|deliveries` (docs/cli.md, docs/alerts.md) through the
 * built CLI: the signing secret is printed once (when generated) and never stored or listed in
 * clear; and a webhook added from the CLI beside a running gateway receives its alerts, signed
 * with the secret the CLI printed.
 */
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openSqliteStore } from "../src/store/sqlite/index.js";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { rows } from "./helpers/rows.js";
import { recordSecret } from "./helpers/secrets.js";

let dir: string;
let db: string;
const cli = (...args: string[]) => gateway([...args, "--db", db]);

beforeAll(async () => {
  assertBuilt();
  dir = tempDir();
  db = join(dir, "alerts.db");
  const store = openSqliteStore(db);
  await store.ensureAccount("acme", Date.now());
  await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("alerts commands", () => {
  test("add, list, remove: a generated secret printed once, sealed at rest, never listed", async () => {
    const added = await cli("alerts", "add", "--url", "http://127.0.0.1:9/hook", "--account", "acme", "--json");
    expect(added.exitCode).toBe(0);
    const secret = added.json.secret as string;
    recordSecret(secret);
    expect(added.json).toEqual({
      id: expect.stringMatching(/^wh_/),
      account: "acme",
      url: "http://127.0.0.1:9/hook",
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_.{32}$/),
    });
    const chosen = "operator-chosen-secret-42";
    recordSecret(chosen);
    const every = await cli("alerts", "add", "--url", "https://ops.internal/alerts", "--secret", chosen, "--json");
    expect(every.exitCode).toBe(0);
    expect(every.json).toEqual({ id: expect.stringMatching(/^wh_/), account: null, url: "https://ops.internal/alerts", created_at: expect.any(String) });

    const stored = await rows<{ secret: Buffer }>(db, "SELECT secret FROM alert_webhooks");
    expect(stored).toHaveLength(2);
    for (const r of stored) for (const s of [secret, chosen]) expect(Buffer.from(r.secret).includes(s)).toBe(false);
    const file = readFileSync(db);
    for (const s of [secret, chosen]) expect(file.includes(s)).toBe(false);

    const listed = await cli("alerts", "list", "--json");
    expect(listed.json.map((w: { id: string }) => w.id)).toEqual([added.json.id, every.json.id]);
    expect(listed.stdout).not.toContain(secret);
    const human = await cli("alerts", "list");
    expect(human.stdout).toContain("(every account)");
    expect(human.stdout).not.toContain(chosen);

    expect((await cli("alerts", "remove", every.json.id)).exitCode).toBe(0);
    const again = await cli("alerts", "remove", every.json.id);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(`no alert webhook '${every.json.id}'`);
    expect((await cli("alerts", "list", "--json")).json).toHaveLength(1);
  });

  test("add refuses a URL that is not http(s), an unknown account, and a short secret", async () => {
    const ftp = await cli("alerts", "add", "--url", "ftp://example.com/x");
    expect(ftp.exitCode).not.toBe(0);
    expect(ftp.stderr).toContain("url: must be an http:// or https:// URL");
    const typo = await cli("alerts", "add", "--url", "http://127.0.0.1:9/x", "--account", "acmee");
    expect(typo.exitCode).toBe(1);
    expect(typo.stderr).toContain("account 'acmee' does not exist");
    const short = await cli("alerts", "add", "--url", "http://127.0.0.1:9/x", "--secret", "short");
    expect(short.exitCode).not.toBe(0);
    expect(short.stderr).toContain("secret: at least 16 characters");
  });

  test("thresholds: defaults, set, turn the low-balance alert off, refuse nonsense", async () => {
    expect((await cli("alerts", "thresholds", "--account", "acme", "--json")).json).toEqual({ account: "acme", percents: [50, 80, 100], low_balance: null });
    const set = await cli("alerts", "thresholds", "--account", "acme", "--percent", "90,25,75", "--low-balance", "5.5", "--json");
    expect(set.json).toEqual({ account: "acme", percents: [25, 75, 90], low_balance: "5.5" });
    expect((await cli("alerts", "thresholds", "--account", "acme")).stdout).toContain("alerts at 25%, 75%, 90% of each budget; low balance below 5.5 USD");
    expect((await cli("alerts", "thresholds", "--account", "acme", "--no-low-balance", "--json")).json).toEqual({
      account: "acme",
      percents: [25, 75, 90],
      low_balance: null,
    });
    const bad = await cli("alerts", "thresholds", "--account", "acme", "--percent", "fifty");
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain("percent: whole percentages");
  });
});

describe("beside a running gateway", () => {
  let fake: FakeUpstream;
  beforeAll(async () => {
    fake = await startFakeUpstream(() => completion("ok", { prompt_tokens: 996, completion_tokens: 1 })); // 150,000 nano-USD
  });
  afterAll(async () => {
    await fake?.close();
  });

  test("a webhook added with the CLI receives the alert, signed with the secret it printed; deliveries lists it with what fired it", async () => {
    const got: Array<{ body: string; signature: string }> = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        got.push({ body: Buffer.concat(chunks).toString("utf8"), signature: String(req.headers["x-gateway-signature"]) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const gwDir = tempDir();
    const database = join(gwDir, "served.db");
    const gw = await startGateway(openaiConfig(fake.url, { database, alerts: { pollMs: 50 } }));
    try {
      const key = await gw.createKey({ account: "live" });
      await gw.addCredits("1", "live");
      const id = (await gw.store.listKeys("live"))[0]!.id;
      expect((await gateway(["keys", "update", id, "--budget", "0.0003", "--db", database])).exitCode).toBe(0);
      const added = await gateway(["alerts", "add", "--url", url, "--account", "live", "--db", database, "--json"], { env: { GATEWAY_SECRET: "test-secret" } });
      expect(added.exitCode).toBe(0);
      const secret = added.json.secret as string;
      recordSecret(secret);
      await new Promise((r) => setTimeout(r, 1_200)); // the server notices the CLI's write (watch, webhook list kept at most 1 s)
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { ...bearer(key), "content-type": "application/json" },
        body: JSON.stringify({ model: "openai/gpt-4o-mini", messages: [{ role: "user", content: "hi" }], max_tokens: 10 }),
      });
      expect(res.status).toBe(200);
      await expect.poll(() => got.length, { timeout: 5_000 }).toBe(1);
      expect(got[0]!.signature).toBe(`sha256=${createHmac("sha256", secret).update(got[0]!.body).digest("hex")}`);
      expect(JSON.parse(got[0]!.body)).toMatchObject({
        type: "budget.threshold",
        account: "live",
        key: id,
        threshold_percent: 50,
        limit: "0.0003",
        spent: "0.00015",
      });
      await expect
        .poll(async () => (await gateway(["alerts", "deliveries", "--db", database, "--json"])).json?.[0]?.status, { timeout: 5_000 })
        .toBe("delivered");
      const [d] = (await gateway(["alerts", "deliveries", "--db", database, "--json"])).json;
      expect(d).toEqual({
        id: JSON.parse(got[0]!.body).id,
        url,
        type: "budget.threshold",
        level: "key",
        threshold_percent: 50,
        limit: "0.0003",
        account: "live",
        status: "delivered",
        attempts: 1,
        last_status: 204,
        created_at: expect.any(String),
        delivered_at: expect.any(String),
      });
      // The table says what fired it: the level and the threshold.
      const table = (await gateway(["alerts", "deliveries", "--db", database])).stdout.split("\n");
      expect(table[0]).toMatch(/^ID +TYPE +FIRED +STATUS/);
      expect(table[1]).toMatch(/budget\.threshold +key 50% +delivered/);
    } finally {
      await gw.close();
      await new Promise<void>((r) => (receiver.closeAllConnections(), receiver.close(() => r())));
      rmSync(gwDir, { recursive: true, force: true });
    }
  });
});

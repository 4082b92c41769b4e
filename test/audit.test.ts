/**
 * The audit log (docs/audit.md): every change through the CLI and the dashboard API leaves
 * exactly one record with who, from where, what and before/after (keys, credits, BYOK, users,
 * budgets, alert webhooks and thresholds, SSO provisioning); only owners and admins read the log
 * in the dashboard; no record ever holds a
 * secret; a failed change leaves none; a change and its record commit together; an edited or
 * deleted record makes `gateway audit verify` exit 1 naming it. Runs on SQLite and (the
 * `postgres` project) on PostgreSQL.
 */
import { userInfo } from "node:os";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashKey } from "../src/access/keys.js";
import type { Role } from "../src/core/roles.js";
import { provision, ssoBy } from "../src/operations/sso-provision.js";
import type { AuditRecord } from "../src/store/index.js";
import { assertBuilt, gateway } from "./helpers/cli.js";
import { call, cookieOf, PASSWORD, signUp, tokenOf } from "./helpers/dashboard.js";
import { startGateway, type TestGateway } from "./helpers/gateway.js";
import { recordSecret } from "./helpers/secrets.js";

let gw: TestGateway;
const secrets: string[] = [];
const keep = (s: string) => (secrets.push(s), recordSecret(s), s);
const ACTOR = `cli:${userInfo().username}`;
const cli = (...args: string[]) => gateway(["--db", gw.db, ...args]);

/** Runs SQL on the gateway's own database, as someone with access to it would. */
async function sql(statement: string, values: unknown[] = []): Promise<void> {
  if (gw.db.startsWith("postgres")) {
    const c = new pg.Client({ connectionString: gw.db });
    await c.connect();
    try {
      await c.query(
        statement.replace(/\?/g, (_m, i: number) => `$${statement.slice(0, i).split("?").length}`),
        values,
      );
    } finally {
      await c.end();
    }
    return;
  }
  const db = new Database(gw.db);
  try {
    db.prepare(statement).run(...values);
  } finally {
    db.close();
  }
}

/** The records `change` added: it must add exactly one. */
async function one(change: () => Promise<unknown>): Promise<AuditRecord> {
  const before = (await gw.store.auditHead()).id;
  await change();
  const added = (await gw.store.auditRecords()).filter((r) => r.id > before);
  expect(added.map((r) => r.action)).toHaveLength(1);
  return added[0]!;
}

async function none(change: () => Promise<unknown>): Promise<void> {
  const before = await gw.store.auditHead();
  await change();
  expect(await gw.store.auditHead()).toEqual(before);
}

beforeAll(async () => {
  assertBuilt();
  gw = await startGateway({});
});
afterAll(() => gw?.close());

describe("through the CLI", () => {
  it("keys, credits, BYOK and users each leave one record with actor cli:<os user> and no IP", async () => {
    let keyId = "";
    const created = await one(async () => {
      const r = await cli("--json", "keys", "create", "--name", "cli-key", "--account", "acme", "--create", "--budget", "5");
      expect(r.exitCode).toBe(0);
      keep(r.json.key);
      keep(hashKey(r.json.key));
      keyId = r.json.id;
    });
    expect(created).toMatchObject({ actor: ACTOR, ip: null, action: "key.create", account: "acme", target: keyId, before: null });
    expect(created.after).toMatchObject({ name: "cli-key", account: "acme", budget: "5", budget_period: "total", revoked_at: null });

    const updated = await one(() => cli("keys", "update", "cli-key", "--rpm", "7", "--no-budget"));
    expect(updated).toMatchObject({ action: "key.update", target: keyId, before: { rpm: null, budget: "5" }, after: { rpm: 7, budget: null } });

    const revoked = await one(() => cli("keys", "revoke", "cli-key"));
    expect(revoked).toMatchObject({ actor: ACTOR, action: "key.revoke", target: keyId, before: { revoked_at: null } });
    expect(revoked.after!.revoked_at).toMatch(/^\d{4}-/);
    await none(() => cli("keys", "revoke", "cli-key")); // already revoked: nothing changed

    const added = await one(() => cli("credits", "add", "10", "--account", "acme"));
    expect(added).toMatchObject({ action: "credits.add", account: "acme", target: "acme", before: { balance: "0" }, after: { balance: "10", added: "10" } });
    const adjusted = await one(() => cli("credits", "adjust", "acme", "-2.5", "--reason", "refund"));
    expect(adjusted).toMatchObject({ action: "credits.adjust", before: { balance: "10" }, after: { balance: "7.5", adjusted: "-2.5", reason: "refund" } });

    const byokKey = keep("sk-byok-cli-0123456789abcdefWXYZ");
    const set = await one(() => cli("byok", "set", "openai", "--account", "acme", "--key", byokKey));
    expect(set).toMatchObject({ action: "byok.set", target: "acme/openai", before: null, after: { provider: "openai", masked: "…WXYZ" } });
    const removed = await one(() => cli("byok", "remove", "openai", "--account", "acme"));
    expect(removed).toMatchObject({ action: "byok.remove", target: "acme/openai", before: { provider: "openai", masked: "…WXYZ" }, after: null });

    const user = await one(async () => keep(tokenOf((await cli("--json", "users", "add", "bob@example.com", "--account", "acme")).json.link)));
    expect(user).toMatchObject({ actor: ACTOR, action: "user.add", account: "acme", target: "bob@example.com", after: { account: "acme", admin: false } });
    const reset = await one(async () => keep(tokenOf((await cli("--json", "users", "reset", "bob@example.com")).json.link)));
    expect(reset).toMatchObject({ action: "user.reset", target: "bob@example.com", before: null });
    const gone = await one(() => cli("users", "remove", "bob@example.com"));
    expect(gone).toMatchObject({ action: "user.remove", target: "bob@example.com", before: { account: "acme", admin: false }, after: null });
  }, 120_000);

  it("budgets and alerts each leave one record; the webhook's secret and query string never reach it", async () => {
    keep(tokenOf((await cli("--json", "users", "add", "dora@example.com", "--account", "acme", "--role", "member")).json.link));
    const set = await one(() => cli("budgets", "set", "100", "--account", "acme"));
    expect(set).toMatchObject({
      actor: ACTOR,
      ip: null,
      action: "budget.set",
      account: "acme",
      target: "acme",
      before: null,
      after: { amount: "100", period: "month" },
    });
    const gone = await one(() => cli("budgets", "remove", "--account", "acme"));
    expect(gone).toMatchObject({ action: "budget.remove", target: "acme", before: { amount: "100", period: "month" }, after: null });
    const member = await one(() => cli("budgets", "set", "20", "--account", "acme", "--member", "dora@example.com", "--period", "day"));
    expect(member).toMatchObject({
      action: "budget.set",
      account: "acme",
      target: "acme/dora@example.com",
      before: null,
      after: { amount: "20", period: "day" },
    });
    const changed = await one(() => cli("budgets", "set", "2.5", "--account", "acme", "--member", "dora@example.com", "--period", "week"));
    expect(changed).toMatchObject({ before: { amount: "20", period: "day" }, after: { amount: "2.5", period: "week" } });
    const removed = await one(() => cli("budgets", "remove", "--account", "acme", "--member", "dora@example.com"));
    expect(removed).toMatchObject({ action: "budget.remove", target: "acme/dora@example.com", before: { amount: "2.5", period: "week" }, after: null });
    // Refused: not a member, no such budget.
    await none(async () => expect((await cli("budgets", "set", "5", "--account", "acme", "--member", "nobody@example.com")).exitCode).not.toBe(0));
    await none(async () => expect((await cli("budgets", "remove", "--account", "acme", "--member", "dora@example.com")).exitCode).not.toBe(0));

    const secret = keep("whsec-audit-0123456789abcdef");
    const token = keep("qs-token-5f2a9c7e1b3d");
    let id = "";
    const hook = await one(async () => {
      const r = await cli(
        "--json",
        "alerts",
        "add",
        "--url",
        `https://hooks.example.com/gw/alerts?token=${token}#frag`,
        "--secret",
        secret,
        "--account",
        "acme",
      );
      expect(r.exitCode).toBe(0);
      id = r.json.id;
    });
    expect(hook).toMatchObject({ actor: ACTOR, action: "alert.webhook.add", account: "acme", target: id, before: null });
    expect(hook.after).toEqual({ account: "acme", url: "https://hooks.example.com/gw/alerts" });
    let generated = "";
    const every = await one(async () => {
      const r = await cli("--json", "alerts", "add", "--url", "http://127.0.0.1:9/every");
      generated = keep(r.json.secret);
    });
    expect(every).toMatchObject({ action: "alert.webhook.add", account: null, after: { account: null, url: "http://127.0.0.1:9/every" } });
    expect(generated.length).toBeGreaterThanOrEqual(16);
    const unhooked = await one(() => cli("alerts", "remove", id));
    expect(unhooked).toMatchObject({
      action: "alert.webhook.remove",
      account: "acme",
      target: id,
      before: { account: "acme", url: "https://hooks.example.com/gw/alerts" },
      after: null,
    });
    await none(async () => expect((await cli("alerts", "remove", id)).exitCode).not.toBe(0));
    await none(async () => expect((await cli("alerts", "add", "--url", "ftp://example.com/x", "--account", "acme")).exitCode).not.toBe(0));

    const thresholds = await one(() => cli("alerts", "thresholds", "--account", "acme", "--percent", "25,75", "--low-balance", "3"));
    expect(thresholds).toMatchObject({
      action: "alert.thresholds",
      account: "acme",
      target: "acme",
      before: { percents: [50, 80, 100], low_balance: null },
      after: { percents: [25, 75], low_balance: "3" },
    });
    const off = await one(() => cli("alerts", "thresholds", "--account", "acme", "--no-low-balance"));
    expect(off).toMatchObject({ before: { percents: [25, 75], low_balance: "3" }, after: { percents: [25, 75], low_balance: null } });
    await none(async () => expect((await cli("alerts", "thresholds", "--account", "acme", "--percent", "0,5000")).exitCode).not.toBe(0));
    await none(async () => expect((await cli("alerts", "thresholds", "--account", "acme")).exitCode).toBe(0)); // showing changes nothing
  }, 180_000);

  it("a failed change leaves no record", async () => {
    await none(async () => expect((await cli("credits", "adjust", "acme", "-1000", "--reason", "too much")).exitCode).toBe(1));
    await none(async () => expect((await cli("keys", "update", "no-such-key", "--rpm", "3")).exitCode).not.toBe(0));
    await none(async () => expect((await cli("users", "remove", "nobody@example.com")).exitCode).not.toBe(0));
  }, 120_000);

  it("gateway audit lists the records as JSON, and a readable table in UTC", async () => {
    const json = await cli("--json", "audit", "--account", "acme");
    expect(json.exitCode).toBe(0);
    expect(json.json.length).toBeGreaterThanOrEqual(10);
    expect(Object.keys(json.json[0]).sort()).toEqual(["action", "actor", "after", "at", "before", "id", "ip", "target"]);
    const later = await cli("--json", "audit", "--since", new Date(Date.now() + 60_000).toISOString());
    expect(later.json).toEqual([]);
    const text = await cli("audit");
    expect(text.stdout).toContain("Times are UTC.");
    expect(text.stdout).toMatch(/credits\.adjust/);
  }, 120_000);
});

describe("through the dashboard", () => {
  it("each change leaves one record with the user's email and IP", async () => {
    const token = keep(tokenOf((await cli("--json", "users", "add", "carol@example.com", "--account", "acme")).json.link));
    let cookie = "";
    const password = await one(async () => {
      const r = await call(gw, "POST", "/dashboard/api/password", { body: { token, password: PASSWORD } });
      expect(r.status).toBe(200);
      cookie = cookieOf(r);
    });
    expect(password).toMatchObject({ actor: "carol@example.com", action: "user.password", before: { password_set: false }, after: { password_set: true } });
    expect(password.ip).toMatch(/127\.0\.0\.1|::1/);

    let id = "";
    const created = await one(async () => {
      const r = await call(gw, "POST", "/dashboard/api/keys", { cookie, body: { name: "dash-key" } });
      expect(r.status).toBe(201);
      keep(r.json.key);
      keep(hashKey(r.json.key));
      id = r.json.id;
    });
    expect(created).toMatchObject({
      actor: "carol@example.com",
      action: "key.create",
      target: id,
      after: { name: "dash-key", created_by: "carol@example.com" },
    });
    expect(created.ip).toMatch(/127\.0\.0\.1|::1/);
    await none(async () => expect((await call(gw, "POST", "/dashboard/api/keys", { cookie, body: { name: "dash-key" } })).status).toBe(400));

    const revoked = await one(async () => expect((await call(gw, "POST", `/dashboard/api/keys/${id}/revoke`, { cookie })).status).toBe(200));
    expect(revoked).toMatchObject({ actor: "carol@example.com", action: "key.revoke", target: id });

    const byokKey = keep("sk-byok-dash-abcdefghijklmnop1234");
    const set = await one(async () => expect((await call(gw, "PUT", "/dashboard/api/byok/openai", { cookie, body: { key: byokKey } })).status).toBe(200));
    expect(set).toMatchObject({ actor: "carol@example.com", action: "byok.set", target: "acme/openai", after: { masked: "…1234" } });
    const removed = await one(async () => expect((await call(gw, "DELETE", "/dashboard/api/byok/openai", { cookie })).status).toBe(200));
    expect(removed).toMatchObject({ action: "byok.remove", target: "acme/openai" });
    await none(async () => expect((await call(gw, "DELETE", "/dashboard/api/byok/openai", { cookie })).status).toBe(404));

    const admin = (await signUpAdmin()).cookie;
    const credited = await one(async () =>
      expect((await call(gw, "POST", "/dashboard/api/credits", { cookie: admin, body: { account: "acme", amount: "1.25" } })).status).toBe(200),
    );
    expect(credited).toMatchObject({ actor: "root@example.com", action: "credits.add", target: "acme", after: { added: "1.25" } });
    expect(credited.ip).toMatch(/127\.0\.0\.1|::1/);
    await none(async () => expect((await call(gw, "POST", "/dashboard/api/credits", { cookie, body: { account: "acme", amount: "1" } })).status).toBe(403));
  }, 120_000);

  it("budgets through the dashboard leave one record each; a viewer's change is refused and leaves none", async () => {
    const { cookie } = await signIn("carol@example.com");
    const set = await one(async () =>
      expect((await call(gw, "PUT", "/dashboard/api/budgets", { cookie, body: { member: null, amount: "30", period: "week" } })).status).toBe(200),
    );
    expect(set).toMatchObject({
      actor: "carol@example.com",
      action: "budget.set",
      account: "acme",
      target: "acme",
      before: null,
      after: { amount: "30", period: "week" },
    });
    expect(set.ip).toMatch(/127\.0\.0\.1|::1/);
    const viewer = await signUpAs("vera@example.com", "viewer");
    await none(async () =>
      expect((await call(gw, "PUT", "/dashboard/api/budgets", { cookie: viewer, body: { member: null, amount: "1", period: "day" } })).status).toBe(403),
    );
    await none(async () => expect((await call(gw, "DELETE", "/dashboard/api/budgets", { cookie: viewer })).status).toBe(403));
    await none(async () =>
      expect((await call(gw, "PUT", "/dashboard/api/budgets", { cookie, body: { member: "nobody@example.com", amount: "1" } })).status).toBe(404),
    );
    const removed = await one(async () => expect((await call(gw, "DELETE", "/dashboard/api/budgets", { cookie })).status).toBe(200));
    expect(removed).toMatchObject({
      actor: "carol@example.com",
      action: "budget.remove",
      target: "acme",
      before: { amount: "30", period: "week" },
      after: null,
    });
    await none(async () => expect((await call(gw, "DELETE", "/dashboard/api/budgets", { cookie })).status).toBe(404));
  }, 120_000);

  it("GET /dashboard/api/audit follows the roles: a member and a viewer are refused, an admin reads it", async () => {
    for (const [email, role] of [
      ["mia@example.com", "member"],
      ["vic@example.com", "viewer"],
    ] as const) {
      const r = await call(gw, "GET", "/dashboard/api/audit", { cookie: await signUpAs(email, role) });
      expect(r.status, role).toBe(403);
      expect(r.json.error.code, role).toBe("forbidden");
    }
    const admin = await call(gw, "GET", "/dashboard/api/audit", { cookie: await signUpAs("ada@example.com", "admin") });
    expect(admin.status).toBe(200);
    expect(admin.json.records.map((r: { action: string }) => r.action)).toEqual(expect.arrayContaining(["budget.set", "alert.thresholds"]));
  }, 120_000);

  it("GET /dashboard/api/audit: a holder sees their account's records only, newest first, in UTC; an admin any account's", async () => {
    await cli("keys", "create", "--name", "globex-key", "--account", "globex", "--create");
    const { cookie } = await signIn("carol@example.com");
    const mine = await call(gw, "GET", "/dashboard/api/audit", { cookie });
    expect(mine.status).toBe(200);
    expect(mine.json.time_zone).toBe("UTC");
    const ids = mine.json.records.map((r: { id: number }) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(mine.json.records.some((r: { target: string }) => r.target.includes("globex") || r.target === "defaults")).toBe(false);
    expect((await call(gw, "GET", "/dashboard/api/audit?account=globex", { cookie })).status).toBe(404);
    const { cookie: admin } = await signIn("root@example.com");
    const theirs = await call(gw, "GET", "/dashboard/api/audit?account=globex", { cookie: admin });
    expect(theirs.json.records.map((r: { action: string }) => r.action)).toEqual(expect.arrayContaining(["key.create", "config.reload"]));
  }, 120_000);
});

describe("single sign-on provisioning", () => {
  it("a first sign-in is user.add by sso:<issuer host>; joining an account member.add; a claim's new role member.role; no change, no record", async () => {
    const by = ssoBy("https://idp.example.com/realms/x", "203.0.113.9");
    const sso = (email: string, claimedRole?: Role) => provision(gw.store, { email, account: "acme", claimedRole }, "member", Date.now(), by);
    const added = await one(() => sso("sam@example.com", "admin"));
    expect(added).toMatchObject({
      actor: "sso:idp.example.com",
      ip: "203.0.113.9",
      action: "user.add",
      account: "acme",
      target: "sam@example.com",
      before: null,
      after: { account: "acme", admin: false, role: "admin" },
    });
    const role = await one(() => sso("sam@example.com", "viewer"));
    expect(role).toMatchObject({
      actor: "sso:idp.example.com",
      action: "member.role",
      target: "sam@example.com",
      before: { role: "admin" },
      after: { role: "viewer" },
    });
    await none(() => sso("sam@example.com", "viewer"));
    await none(() => sso("sam@example.com"));

    await cli("users", "add", "gus@example.com", "--account", "globex", "--create");
    const joined = await one(() => sso("gus@example.com"));
    expect(joined).toMatchObject({ action: "member.add", account: "acme", target: "gus@example.com", before: null, after: { role: "member" } });
  }, 120_000);
});

describe("the record and the change are one transaction", () => {
  it("a record that cannot be written takes its change with it, and a change that fails takes its record", async () => {
    const record = { id: "key_audit_tx", name: "tx-key", account: "acme", hash: "h".repeat(64), last4: "abcd", createdAt: Date.now() };
    const key = { ...record, expiresAt: null, revokedAt: null, lastUsedAt: null, rpm: null };
    const bad = { actor: null as unknown as string, ip: null, at: Date.now(), action: "key.create", account: "acme", target: key.id, before: null, after: {} };
    await none(() => expect(gw.store.audited(bad).createKey(key)).rejects.toThrow());
    expect(await gw.store.findKey(key.id)).toBeUndefined();
    await gw.store.createKey(key);
    await none(() => expect(gw.store.audited({ ...bad, actor: "test" }).createKey(key)).rejects.toThrow());
  }, 120_000);
});

describe("gateway audit verify", () => {
  it("passes an intact chain, and names the record that was edited or deleted", async () => {
    const ok = await cli("audit", "verify");
    expect(ok.exitCode).toBe(0);
    const count = (await gw.store.auditHead()).id;
    expect(ok.stdout).toContain(`Verified ${count} audit record(s)`);

    const victim = (await gw.store.auditRecords({ action: "credits.add" }))[0]!;
    const original = JSON.stringify(victim.after);
    await sql("UPDATE audit_log SET after = ? WHERE id = ?", ['{"added":"1000","balance":"1000"}', victim.id]);
    const edited = await cli("--json", "audit", "verify");
    expect(edited.exitCode).toBe(1);
    expect(edited.json).toMatchObject({ ok: false, id: victim.id });
    expect((await cli("audit", "verify")).stdout).toContain(`record ${victim.id} was edited`);
    await sql("UPDATE audit_log SET after = ? WHERE id = ?", [original, victim.id]);
    expect((await cli("audit", "verify")).exitCode).toBe(0);

    const deleted = (await gw.store.auditRecords({ action: "byok.set" }))[0]!;
    await sql("DELETE FROM audit_log WHERE id = ?", [deleted.id]);
    const broken = await cli("audit", "verify");
    expect(broken.exitCode).toBe(1);
    expect(broken.stdout).toContain(`record ${deleted.id} is missing`);
  }, 120_000);

  it("no record holds any key, BYOK key, password, token or hash the tests created", async () => {
    const user = await gw.store.findUser("carol@example.com");
    const all = JSON.stringify(await gw.store.auditRecords()) + (await cli("--json", "audit")).stdout;
    for (const s of [...secrets, PASSWORD, user!.passwordHash!]) expect(all).not.toContain(s);
    expect(secrets.length).toBeGreaterThanOrEqual(8);
  }, 120_000);
});

async function signIn(email: string) {
  const r = await call(gw, "POST", "/dashboard/api/session", { body: { email, password: PASSWORD } });
  expect(r.status).toBe(200);
  return { cookie: cookieOf(r) };
}

/** A new user of acme with `role`, signed in: their session cookie. */
async function signUpAs(email: string, role: Role): Promise<string> {
  const added = await cli("--json", "users", "add", email, "--account", "acme", "--role", role);
  expect(added.exitCode).toBe(0);
  const r = await call(gw, "POST", "/dashboard/api/password", { body: { token: keep(tokenOf(added.json.link)), password: PASSWORD } });
  expect(r.status).toBe(200);
  return cookieOf(r);
}

async function signUpAdmin() {
  return signUp(gw, "root@example.com", "ops", true);
}

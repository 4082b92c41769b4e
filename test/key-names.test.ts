/**
 * Key names are unique per account, not across accounts (docs/cli.md "Keys"): two tenants may
 * both name a key `ci`, `key_name_taken` speaks only of the caller's own account, the dashboard
 * finds a name in the account it acts on, and the CLI's `keys revoke|update <name>` with a name
 * two accounts use is bad usage naming them until `--account` says which.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { assertBuilt, gateway } from "./helpers/cli.js";
import { call, signUp } from "./helpers/dashboard.js";
import { startFakeUpstream, type FakeUpstream } from "./helpers/fake-upstream.js";
import { openaiConfig, startGateway, type TestGateway } from "./helpers/gateway.js";
import { bearer } from "./helpers/http.js";
import { completion } from "./helpers/openai-wire.js";
import { recordSecret } from "./helpers/secrets.js";

let up: FakeUpstream;
let gw: TestGateway;
const cookies: Record<string, string> = {};
const api = (who: string, method: string, path: string, body?: unknown) => call(gw, method, `/dashboard/api${path}`, { cookie: cookies[who]!, body });
const cli = (...args: string[]) => gateway(["--db", gw.db, ...args], { cwd: gw.dir });
const keyInfo = async (key: string) => (await (await fetch(`${gw.url}/v1/key`, { headers: bearer(key) })).json()) as { name: string; account: string };

beforeAll(async () => {
  assertBuilt();
  up = await startFakeUpstream(() => completion("hi"));
  gw = await startGateway(openaiConfig(up.url));
  cookies.acme = (await signUp(gw, "owner@acme.example", "acme")).cookie;
  cookies.beta = (await signUp(gw, "owner@beta.example", "beta")).cookie;
});
afterAll(async () => {
  await gw?.close();
  await up?.close();
});

async function created(who: string, name: string): Promise<{ id: string; key: string }> {
  const r = await api(who, "POST", "/keys", { name });
  expect(r.status, r.text).toBe(201);
  recordSecret(r.json.key);
  return r.json;
}

test("two accounts each have a key named ci; taken speaks only of the caller's account; the dashboard acts on its own account's ci", async () => {
  const acme = await created("acme", "ci");
  const beta = await created("beta", "ci");
  expect(await keyInfo(acme.key)).toMatchObject({ name: "ci", account: "acme" });
  expect(await keyInfo(beta.key)).toMatchObject({ name: "ci", account: "beta" });

  const again = await api("beta", "POST", "/keys", { name: "ci" });
  expect(again.status).toBe(400);
  expect(again.json.error.code).toBe("key_name_taken");
  expect(again.json.error.message).toContain("'beta'");
  expect(again.text).not.toContain("acme");
  // A name only another tenant uses is free here, and says nothing about them.
  expect((await api("acme", "POST", "/keys", { name: "beta-only" })).status).toBe(201);
  expect((await api("beta", "POST", "/keys", { name: "beta-only" })).status).toBe(201);

  // By name, each owner reaches their own account's ci; another account's key by id reads as missing.
  expect((await api("beta", "PATCH", "/keys/ci", { rpm: 5 })).json).toMatchObject({ id: beta.id, account: "beta", rpm: 5 });
  expect((await api("beta", "POST", `/keys/${acme.id}/revoke`)).status).toBe(404);
  expect((await api("beta", "POST", "/keys/ci/revoke")).json).toMatchObject({ id: beta.id, state: "revoked" });
  expect((await gw.store.findKey(acme.id))!).toMatchObject({ revokedAt: null, rpm: null });
  expect((await fetch(`${gw.url}/v1/models`, { headers: bearer(acme.key) })).status).toBe(200);
});

test("keys revoke|update <name> with a name two accounts use is exit 2 naming them; --account picks one", async () => {
  await created("acme", "deploy");
  await created("beta", "deploy");
  for (const args of [
    ["keys", "revoke", "deploy"],
    ["keys", "update", "deploy", "--rpm", "7"],
  ]) {
    const r = await cli(...args);
    expect(r.exitCode, args.join(" ")).toBe(2);
    expect(r.stderr).toMatch(/'acme', 'beta' each have a key named 'deploy': add --account/);
  }
  const updated = await cli("--json", "keys", "update", "deploy", "--rpm", "7", "--account", "acme");
  expect(updated.exitCode, updated.stderr).toBe(0);
  expect(updated.json).toMatchObject({ name: "deploy", account: "acme", rpm: 7 });
  expect((await gw.store.findKey("deploy", "beta"))!.rpm).toBeNull();

  const revoked = await cli("--json", "keys", "revoke", "deploy", "--account", "beta");
  expect(revoked.json).toMatchObject({ name: "deploy", account: "beta", state: "revoked" });
  expect((await gw.store.findKey("deploy", "acme"))!.revokedAt).toBeNull();

  const missing = await cli("keys", "revoke", "deploy", "--account", "gamma");
  expect(missing.exitCode).toBe(1);
  expect(missing.stderr).toContain("no key with id or name 'deploy' in account 'gamma'");
  expect((await cli("--json", "keys", "update", "beta-only", "--account", "beta", "--rpm", "3")).json.rpm).toBe(3);
  const taken = await cli("keys", "create", "--name", "deploy", "--account", "acme");
  expect(taken.exitCode).toBe(1);
  expect(taken.stderr).toContain("account 'acme' already has a key named 'deploy'");
  // A name one account uses needs no --account.
  const ci = await cli("--json", "keys", "create", "--name", "solo", "--account", "acme");
  expect((await cli("--json", "keys", "revoke", "solo")).json).toMatchObject({ id: ci.json.id, state: "revoked" });
}, 120_000);

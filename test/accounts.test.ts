/**
 * docs/cli.md accounts: `accounts list [--json]` (balance, keys, spend), `credits add` to
 * an unknown account refused unless `--create` (`default` implicit), `credits adjust <account>
 * <±amount> --reason` exact, never below zero, recorded as a grant row of its own kind.
 */
import Database from "better-sqlite3";
import { userInfo } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";

beforeAll(() => assertBuilt());

test("credits add: a typo in --account is refused (exit 1, the closest account named); --create creates; default is implicit", async () => {
  const dir = tempDir();
  const g = (...args: string[]) => gateway(args, { cwd: dir });
  expect((await g("credits", "add", "10")).stdout).toBe("Added $10 to 'default'. Balance: $10");
  const typo = await g("credits", "add", "5", "--account", "tema-a");
  expect(typo.exitCode).toBe(1);
  expect(typo.stderr.trim()).toBe("error: account 'tema-a' does not exist (did you mean 'default'?); check the name, or add --create to create it");
  const created = await g("credits", "add", "5", "--account", "team-a", "--create", "--json");
  expect(created.exitCode).toBe(0);
  expect(created.json).toEqual({ account: "team-a", added: "5", balance: "5" });
  expect((await g("credits", "add", "0.000000001", "--account", "team-a")).stdout).toBe("Added $0.000000001 to 'team-a'. Balance: $5.000000001");
});

test("every command that takes an account refuses a typo of one (exit 1, one line naming the closest); --create creates where offered", async () => {
  const dir = tempDir();
  const g = (...args: string[]) => gateway(args, { cwd: dir });
  expect((await g("keys", "create", "--name", "k1", "--account", "acme", "--create")).exitCode).toBe(0);
  const typo = ["--account", "acmee"];
  const commands = [
    ["keys", "create", "--name", "k2", ...typo],
    ["keys", "list", ...typo],
    ["credits", "show", ...typo],
    ["credits", "add", "5", ...typo],
    ["credits", "adjust", "acmee", "+1", "--reason", "x"],
    ["credits", "history", ...typo],
    ["byok", "set", "openai", "--key", "sk-typo-own-key-0000", ...typo],
    ["byok", "list", ...typo],
    ["byok", "remove", "openai", ...typo],
    ["usage", ...typo],
    ["users", "add", "dev@example.com", ...typo],
    ["models", "list", ...typo],
  ];
  for (const args of commands) {
    const r = await g(...args);
    expect(r.exitCode, args.join(" ")).toBe(1);
    const creatable = ["keys create", "credits add", "users add"].includes(args.slice(0, 2).join(" "));
    const hint = creatable ? ", or add --create to create it" : "";
    expect(r.stderr.trim(), args.join(" ")).toBe(`error: account 'acmee' does not exist (did you mean 'acme'?); check the name${hint}`);
  }
  expect((await g("accounts", "list", "--json")).json.map((a: { id: string }) => a.id)).toEqual(["acme"]);

  expect((await g("keys", "create", "--name", "k2", "--account", "team-b", "--create")).exitCode).toBe(0);
  expect((await g("credits", "add", "1", "--account", "team-c", "--create")).exitCode).toBe(0);
  expect((await g("users", "add", "dev@example.com", "--account", "team-d", "--create")).exitCode).toBe(0);
  expect((await g("credits", "show", "--account", "default", "--json")).json).toEqual({ account: "default", balance: "0" });
  expect((await g("accounts", "list", "--json")).json.map((a: { id: string }) => a.id)).toEqual(["acme", "team-b", "team-c", "team-d"]);
}, 120_000);

test("credits adjust: exact signed amounts with a reason, refused below zero and for an unknown account, a grant row of kind adjustment", async () => {
  const dir = tempDir();
  const g = (...args: string[]) => gateway(args, { cwd: dir });
  await g("credits", "add", "9223372036", "--account", "big", "--create");
  const down = await g("credits", "adjust", "big", "-0.000000001", "--reason", "wrong credit", "--json");
  expect(down.exitCode).toBe(0);
  expect(down.json).toEqual({ account: "big", adjusted: "-0.000000001", balance: "9223372035.999999999", reason: "wrong credit" });
  expect((await g("credits", "adjust", "big", "+0.5", "--reason", "refund")).stdout).toBe("Adjusted 'big' by +$0.5 (refund). Balance: $9223372036.499999999");

  const below = await g("credits", "adjust", "big", "-9223372036.5", "--reason", "too much");
  expect(below.exitCode).toBe(1);
  expect(below.stderr.trim()).toBe("error: refused: the balance of 'big' is 9223372036.499999999 USD; adjusting by -9223372036.5 would take it below zero");
  const unknown = await g("credits", "adjust", "nobody", "+1", "--reason", "x");
  expect(unknown.exitCode).toBe(1);
  expect(unknown.stderr).toContain("account 'nobody' does not exist");
  expect((await g("credits", "adjust", "big", "0", "--reason", "x")).exitCode).toBe(2);
  expect((await g("credits", "adjust", "big", "-1")).exitCode).toBe(2); // --reason is required

  const by = `cli:${userInfo().username}`;
  const history = await g("credits", "history", "--account", "big", "--json");
  expect(history.exitCode).toBe(0);
  expect(history.json).toEqual({
    account: "big",
    balance: "9223372036.499999999",
    history: [
      { amount: "0.5", kind: "adjustment", reason: "refund", by, created_at: expect.any(String) },
      { amount: "-0.000000001", kind: "adjustment", reason: "wrong credit", by, created_at: expect.any(String) },
      { amount: "9223372036", kind: "grant", reason: null, by, created_at: expect.any(String) },
    ],
  });
  const text = (await g("credits", "history", "--account", "big")).stdout.split("\n");
  expect(text[0]).toBe("Balance of 'big': $9223372036.499999999");
  expect(text[2]).toMatch(/^WHEN\s+AMOUNT \$\s+KIND\s+BY\s+REASON$/);
  expect(text[3]).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\S+\\s+\\+0\\.5\\s+adjustment\\s+${by}\\s+refund$`));
  expect(text[4]).toMatch(/\s-0\.000000001\s+adjustment\s.*\swrong credit$/);
  expect((await g("credits", "history", "--account", "default")).stdout).toBe("Balance of 'default': $0\nNo credits yet (gateway credits add).");

  const db = new Database(join(dir, "gateway.db"), { readonly: true });
  db.defaultSafeIntegers(true);
  const rows = db.prepare("SELECT amount, kind, reason FROM credit_grants WHERE account = 'big' ORDER BY id").all();
  const balance = db.prepare("SELECT balance FROM accounts WHERE id = 'big'").pluck().get();
  db.close();
  expect(rows).toEqual([
    { amount: 9223372036000000000n, kind: "grant", reason: null },
    { amount: -1n, kind: "adjustment", reason: "wrong credit" },
    { amount: 500000000n, kind: "adjustment", reason: "refund" },
  ]);
  expect(balance).toBe(9223372036499999999n); // the grants sum to the balance (nothing charged)
}, 60_000);

test("accounts list: balance, active keys and spend per account, in text and --json", async () => {
  const dir = tempDir();
  const g = (...args: string[]) => gateway(args, { cwd: dir });
  expect((await g("accounts", "list")).stdout).toBe("No accounts (gateway keys create makes the first one).");
  await g("keys", "create", "--name", "a1", "--account", "team-a", "--create");
  await g("keys", "create", "--name", "a2", "--account", "team-a");
  await g("keys", "revoke", "a2");
  await g("credits", "add", "2.5", "--account", "team-a");
  await g("credits", "add", "1");
  const list = await g("accounts", "list", "--json");
  expect(list.json).toEqual([
    { id: "default", balance: "1", keys: 0, spend: "0", created_at: expect.any(String) },
    { id: "team-a", balance: "2.5", keys: 1, spend: "0", created_at: expect.any(String) },
  ]);
  const text = (await g("accounts", "list")).stdout.split("\n");
  expect(text[0]).toMatch(/^ACCOUNT\s+BALANCE \$\s+KEYS\s+SPEND \$\s+CREATED$/);
  expect(text[2]).toMatch(/^team-a\s+2\.5\s+1\s+0\s+\d{4}-\d{2}-\d{2}$/);
});

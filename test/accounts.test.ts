/**
 * contract.md §13 accounts: `accounts list [--json]` (balance, keys, spend), `credits add` to
 * an unknown account refused unless `--create` (`default` implicit), `credits adjust <account>
 * <±amount> --reason` exact, never below zero, recorded as a grant row of its own kind.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { assertBuilt, gateway, tempDir } from "./helpers/cli.js";

beforeAll(() => assertBuilt());

test("credits add: a typo in --account is refused (exit 1, the known accounts listed); --create creates; default is implicit", async () => {
  const dir = tempDir();
  const g = (...args: string[]) => gateway(args, { cwd: dir });
  expect((await g("credits", "add", "10")).stdout).toBe("Added $10 to 'default'. Balance: $10");
  const typo = await g("credits", "add", "5", "--account", "tema-a");
  expect(typo.exitCode).toBe(1);
  expect(typo.stderr.trim()).toBe("error: account 'tema-a' does not exist (accounts: default); check the name, or add --create to create it");
  const created = await g("credits", "add", "5", "--account", "team-a", "--create", "--json");
  expect(created.exitCode).toBe(0);
  expect(created.json).toEqual({ account: "team-a", added: "5", balance: "5" });
  expect((await g("credits", "add", "0.000000001", "--account", "team-a")).stdout).toBe("Added $0.000000001 to 'team-a'. Balance: $5.000000001");
});

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
});

test("accounts list: balance, active keys and spend per account, in text and --json", async () => {
  const dir = tempDir();
  const g = (...args: string[]) => gateway(args, { cwd: dir });
  expect((await g("accounts", "list")).stdout).toBe("No accounts (gateway keys create makes the first one).");
  await g("keys", "create", "--name", "a1", "--account", "team-a");
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

/**
 * A tool call's money (docs/mcp.md, "Accounting"): its server's `pricePerCall` is held before the
 * call like a model request's worst case (the balance, and every budget level, in one step:
 * billing/budget.ts), a 402 when it does not fit; settled after the call in one transaction with
 * its ledger row (`endpoint: mcp`, model `<server>/<tool>`, bytes in and out; never the
 * arguments or the result). A call the server never answered is not charged.
 */
import { randomUUID } from "node:crypto";
import { insufficientCredits, type GatewayError } from "../core/errors.js";
import { nanoToUsd } from "../core/money.js";
import { budgetHold, budgetScope, levelsOf, tightest } from "../billing/budget.js";
import type { KeyRecord, LedgerEntry, Store } from "../store/index.js";

export interface CallOutcome {
  /** ok: the tool answered (an `isError` result included: the tool ran); error: no answer; cancelled: the client left. */
  status: LedgerEntry["status"];
  bytesIn: number;
  bytesOut: number;
}

export class CallBill {
  private settled = false;
  charged = 0;

  private constructor(
    private readonly store: Store,
    private readonly key: KeyRecord,
    private readonly call: { requestId: string; server: string; tool: string; price: number; startedAt: number },
    private readonly hold: string | null,
  ) {}

  /** Holds the call's price, or throws the 402 that says which limit refused. */
  static async open(store: Store, key: KeyRecord, call: { requestId: string; server: string; tool: string; price: number }, now: number): Promise<CallBill> {
    const info = { ...call, startedAt: now };
    if (call.price === 0) return new CallBill(store, key, info, null);
    const id = `res_${randomUUID()}`;
    if (await store.reserve(id, key.account, call.price, budgetHold(key, now), budgetScope(key, now))) return new CallBill(store, key, info, id);
    throw await callRefusal(store, key, call.price, now);
  }

  /** Writes the ledger row (once) and releases the hold; the charge is the price when the tool answered. */
  async settle(o: CallOutcome, now: number): Promise<void> {
    if (this.settled) return;
    this.settled = true;
    const cost = o.status === "ok" ? this.call.price : 0;
    const entry: LedgerEntry = {
      requestId: this.call.requestId,
      createdAt: this.call.startedAt,
      account: this.key.account,
      keyId: this.key.id,
      model: `${this.call.server}/${this.call.tool}`,
      provider: this.call.server,
      promptTokens: 0,
      completionTokens: 0,
      cost,
      listCost: this.call.price,
      byok: false,
      usageSource: "none",
      status: o.status,
      httpStatus: 200,
      latencyMs: now - this.call.startedAt,
      attempts: 1,
      endpoint: "mcp",
      bytesIn: o.bytesIn,
      bytesOut: o.bytesOut,
    };
    await this.store.settle(this.hold, entry, []);
    this.charged = entry.cost - (entry.uncollected ?? 0);
  }
}

/** The 402 of a tool call: the tightest budget without room, else the balance (billing/refusal.ts says the same for models). */
async function callRefusal(store: Store, key: KeyRecord, price: number, now: number): Promise<GatewayError> {
  const cost = `This tool call costs $${nanoToUsd(price)}`;
  const short = tightest((await levelsOf(store, key, now)).filter((l) => l.left < BigInt(price)));
  if (short) {
    const whose = short.level === "key" ? "this API key's budget" : short.level === "member" ? "the budget of the key's creator" : "the account's budget";
    return insufficientCredits(
      `${cost} and ${whose} has $${nanoToUsd(short.left)} left ${short.period === "total" ? "in total" : `this ${short.period}`}.`,
      short.level,
    );
  }
  const balance = (await store.balance(key.account)) ?? 0n;
  return insufficientCredits(`${cost} and the balance is $${nanoToUsd(balance)}. Add funds (gateway credits add).`);
}

/**
 * Billing for one request: hold the worst-case cost before going upstream, settle to the
 * actual cost when the request ends (whatever way it ends) in one transaction, release the
 * rest. BYOK endpoints are never charged and never get a 402.
 */
import { randomUUID } from "node:crypto";
import { requestedMaxTokens } from "../core/content.js";
import { outputBudget, promptUpperBound, usageBound } from "./request-bound.js";
import type { Route, RoutedEndpoint } from "../catalog/catalog.js";
import { budgetHold, budgetScope } from "./budget-holds.js";
import { refusal, type OutputAsk } from "./refusal.js";
import { cappedUsage } from "./usage-check.js";
import { callsCost, costOf, type Prices } from "../core/money.js";
import { pricesOf, usageCost, withCallPrices } from "./prices.js";
import { endpointPrices } from "../catalog/prices.js";
import type { RequestRecord, SettledUsage } from "../observability/request-record.js";
import type { ChatRequest, Usage } from "../core/chat-request.js";
import type { Tags } from "../core/request-tags.js";
import type { ApiEndpoint, Attempt, InflightRow, KeyRecord, LedgerEntry, Store } from "../store/index.js";

export { outputBudget, worstTokens } from "./request-bound.js";

export interface Settlement {
  endpoint: RoutedEndpoint | null;
  usage: Usage | null;
  usageSource: LedgerEntry["usageSource"];
  status: LedgerEntry["status"];
  httpStatus: number;
  attempts: Attempt[];
}

export class Bill {
  private settled = false;
  /** Which API the request came through, for the ledger (`gateway usage` by endpoint). */
  endpoint: ApiEndpoint = "chat";
  /** The request's tags (docs/usage.md, "Tags"), for the ledger row; null: none. */
  tags: Tags | null = null;
  /** Told the settlement (usage, charge, attempts) for the request's metrics and log line. */
  private record: RequestRecord | null = null;
  /** What the request could have produced (usageBound), when its endpoint knows: usage the gateway counted is cut to it. */
  bound: (() => { prompt: number; completion: number }) | null = null;

  constructor(
    private store: Store,
    private key: KeyRecord,
    private route: Route,
    private requestId: string,
    private startedAt: number,
    readonly reservationId: string | null,
    readonly reserved: number,
    /** Only BYOK endpoints may serve this request (the balance could not cover it). */
    readonly byokOnly: boolean,
  ) {}

  private boundOnce: { prompt: number; completion: number } | null = null;

  /** Counted `usage` cut to the request's bound, or null when within it (or no bound is known). */
  private capped(usage: Usage): Usage | null {
    if (!this.bound) return null;
    const b = (this.boundOnce ??= this.bound());
    return cappedUsage(usage, b.prompt, b.completion);
  }

  /** What the request was charged once settled (the ledger row's `cost`), for X-Gateway-Cost. */
  charged: number | null = null;

  /** The list cost of `usage` on `endpoint`, at that endpoint's prices (billing/prices.ts), per-call tool fees included. */
  costOf(endpoint: RoutedEndpoint | null, usage: Usage): number {
    return usageCost(this.pricesFor(endpoint, usage), usage);
  }

  private pricesFor(endpoint: RoutedEndpoint | null, usage: Usage): Prices {
    const prices = endpointPrices(this.route, endpoint);
    return usage.tool_calls ? withCallPrices(this.route, endpoint, prices, usage.tool_calls) : prices;
  }

  /** What settling the provider's `usage` on `endpoint` will charge (before any uncollected part): a stream's `usage.cost`. */
  chargeOf(endpoint: RoutedEndpoint, usage: Usage): number {
    return endpoint.byok ? 0 : this.costOf(endpoint, usage);
  }

  /** Drops the hold without a ledger row: the request moves on to a fallback model (docs/routing.md). */
  release(): Promise<void> {
    this.settled = true;
    return this.reservationId ? this.store.release(this.reservationId) : Promise.resolve();
  }

  observe(record: RequestRecord): void {
    this.record = record;
    record.billed = true;
  }

  /** This request as the in-flight journal records it, had it to stop now having delivered `usage` (billing/journal.ts). */
  inflightRow(endpoint: RoutedEndpoint, delivered: Usage): InflightRow | undefined {
    if (this.settled) return undefined;
    const usage = this.capped(delivered) ?? delivered;
    return {
      requestId: this.requestId,
      createdAt: this.startedAt,
      account: this.key.account,
      keyId: this.key.id,
      model: this.route.model.id,
      provider: endpoint.provider,
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      listCost: this.costOf(endpoint, usage),
      byok: endpoint.byok,
    };
  }

  /**
   * Records the request once (later calls are ignored, e.g. a disconnect after an error);
   * resolves when committed. The charge is the whole list cost: the hold only decided
   * admission. The store takes what it can (store/index.ts settle) and records the rest as uncollected.
   * With `retry` (a stream, billing/settle-retry.ts) a failed write is retried by it. The
   * request's metrics and log line count the charge only once the row landed.
   */
  settle(s: Settlement, now: number, retry?: (write: () => Promise<void>) => Promise<boolean>): Promise<void> {
    if (this.settled) return Promise.resolve();
    this.settled = true;
    const { usage, listCost, toolCost } = this.priced(s);
    const charged = s.endpoint && !s.endpoint.byok ? listCost : 0;
    const told: SettledUsage = {
      provider: s.endpoint?.provider ?? null,
      prompt: usage?.prompt_tokens ?? 0,
      completion: usage?.completion_tokens ?? 0,
      cost: charged,
      usageSource: s.usageSource,
      outcome: s.status,
      attempts: s.attempts,
      ...(usage?.unbounded && { unbounded: usage.unbounded }),
    };
    const entry = this.entryOf(s, now, told, { usage, listCost, toolCost });
    const write = () => this.store.settle(this.reservationId, entry, s.attempts).then(() => void (this.charged = entry.cost - (entry.uncollected ?? 0)));
    const landed = (ok: boolean) => this.record?.settle(ok ? told : { ...told, cost: 0 });
    if (retry) return retry(write).then(landed);
    return write().then(
      () => void landed(true),
      (err: unknown) => {
        landed(false);
        throw err;
      },
    );
  }

  /**
   * The usage billed and its list cost: the provider's report as checked (billing/usage-check.ts),
   * or the gateway's own count cut to what the request could produce (docs/limits.md).
   */
  private priced(s: Settlement): Priced {
    try {
      const usage = s.usage && s.usageSource === "estimated" ? (this.capped(s.usage) ?? s.usage) : s.usage;
      if (!usage) return { usage: null, listCost: 0, toolCost: 0 };
      const prices = this.pricesFor(s.endpoint, usage);
      return { usage, listCost: usageCost(prices, usage), toolCost: usage.tool_calls ? callsCost(prices, usage.tool_calls) : 0 };
    } catch {
      // Counts reach here validated (billing/usage-check.ts); should one not, the row is still written
      // and the hold released (a throw here would strand the hold until restart).
      return { usage: null, listCost: 0, toolCost: 0 };
    }
  }

  private entryOf(s: Settlement, now: number, told: SettledUsage, { usage, listCost, toolCost }: Priced): LedgerEntry {
    return {
      requestId: this.requestId,
      createdAt: this.startedAt,
      account: this.key.account,
      keyId: this.key.id,
      model: this.route.model.id,
      provider: told.provider,
      promptTokens: told.prompt,
      completionTokens: told.completion,
      cost: told.cost,
      listCost,
      byok: s.endpoint?.byok ?? false,
      usageSource: s.usageSource,
      status: s.status,
      httpStatus: s.httpStatus,
      latencyMs: now - this.startedAt,
      attempts: s.attempts.length,
      endpoint: this.endpoint,
      tags: this.tags,
      ...(usage?.unbounded && {
        reportedPromptTokens: usage.unbounded.prompt_tokens,
        reportedCompletionTokens: usage.unbounded.completion_tokens,
        reportedToolCalls: usage.unbounded.tool_calls ?? null,
      }),
      ...(usage?.tool_calls && { toolCalls: usage.tool_calls, toolCost }),
    };
  }
}

/** Usage as billed: its list cost, and the per-call fees inside it. */
interface Priced {
  usage: Usage | null;
  listCost: number;
  toolCost: number;
}

/** Reserves the worst case, or narrows the route to BYOK endpoints, or throws 402. */
export async function openBill(store: Store, key: KeyRecord, route: Route, body: ChatRequest, requestId: string, now: number): Promise<Bill> {
  const ask: OutputAsk = {
    promptTokens: promptUpperBound(body),
    maxTokens: outputBudget(body, route),
    n: body.n ?? 1,
    requested: requestedMaxTokens(body) !== undefined,
  };
  const bill = await holdWorstCase(store, key, route, () => costOf(pricesOf(route), ask.promptTokens, ask.maxTokens * ask.n), requestId, now, ask);
  bill.bound = () => usageBound(body, route);
  return bill;
}

/**
 * openBill for any endpoint: `worstCost` (nano-USD) is asked only when the platform balance is
 * at stake; `ask`, when the worst case is a prompt plus an output budget, lets the 402 name the
 * largest max_tokens the money covers (billing/refusal.ts).
 */
export async function holdWorstCase(
  store: Store,
  key: KeyRecord,
  route: Route,
  worstCost: () => number,
  requestId: string,
  now: number,
  ask?: OutputAsk,
): Promise<Bill> {
  const prices = pricesOf(route);
  const platform = route.endpoints.some((e) => !e.byok);
  const hasByok = route.endpoints.some((e) => e.byok);
  const free = prices.prompt === 0 && prices.completion === 0;
  if (!platform || free) return new Bill(store, key, route, requestId, now, null, 0, false);
  const worst = worstCost();
  const id = `res_${randomUUID()}`;
  const budget = budgetHold(key, now);
  if (await store.reserve(id, key.account, worst, budget, budgetScope(key, now))) return new Bill(store, key, route, requestId, now, id, worst, false);
  if (hasByok) return new Bill(store, key, route, requestId, now, null, 0, true); // BYOK never counts against a budget
  throw await refusal(store, key, prices, worst, now, ask);
}

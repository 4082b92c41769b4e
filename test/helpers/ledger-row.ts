/**
 * A request's ledger row as the gateway wrote it, read by the answer's X-Request-Id from either
 * store (helpers/rows.ts): a stream's row is written as it ends, so it is waited for; a JSON
 * answer's row is checked against its X-Gateway-Cost, which must be the row's cost (docs/routing.md).
 */
import { expect } from "vitest";
import { nanoToUsd } from "../../src/core/money.js";
import { rows } from "./rows.js";

export type LedgerRow = Record<string, any>;

export async function ledgerRowOf(db: string, res: Response): Promise<LedgerRow> {
  const id = res.headers.get("x-request-id");
  for (let i = 0; i < 200; i++) {
    const [row] = await rows<LedgerRow>(db, "SELECT * FROM ledger WHERE request_id = ?", id);
    if (row) return row;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ledger row for ${id}`);
}

/** A 200 JSON answer's row; its X-Gateway-Cost is the row's cost. */
export async function jsonLedgerRow(db: string, res: Response): Promise<LedgerRow> {
  expect(res.status, await res.clone().text()).toBe(200);
  const row = await ledgerRowOf(db, res);
  expect(res.headers.get("x-gateway-cost")).toBe(nanoToUsd(row.cost));
  return row;
}

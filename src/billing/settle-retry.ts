/**
 * A settlement that fails because the store is out of reach is retried until it lands
 * (docs/fleet.md, "Settlement that fails"): the client has its answer, so the charge is owed.
 * The waits double from FIRST_RETRY_MS up to MAX_RETRY_MS. Settlement is idempotent by request
 * id (src/store/pg/settle-once.ts), so a retry after an attempt that did commit bills nothing twice.
 * While it retries, the stream's final row stays in the in-flight journal (billing/journal.ts):
 * when the process stops first (`closing` aborts: one last attempt, then it gives up), the next
 * start bills that row, as for a killed process.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { GatewayError } from "../core/errors.js";

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;

const retryable = (err: unknown) => err instanceof GatewayError && err.code === "store_unavailable";
const reason = (err: unknown) => ((err as Error)?.cause as Error | undefined)?.message ?? (err as Error)?.message ?? String(err);

/** Runs `write` until it resolves; false when it gave up (an error that is not an outage, or the process stopping). */
export async function untilLanded(write: () => Promise<void>, what: string, closing: AbortSignal, log: (line: string) => void): Promise<boolean> {
  for (let wait = FIRST_RETRY_MS, tries = 1; ; tries++) {
    try {
      await write();
      if (tries > 1) log(`[gateway] ${what}: settled after ${tries} attempts`);
      return true;
    } catch (err) {
      if (!retryable(err) || closing.aborted) {
        log(`[gateway] ${what}: settlement failed (${reason(err)}); ${retryable(err) ? "left in the in-flight journal for the next start" : "not billed"}`);
        return false;
      }
      if (tries === 1) log(`[gateway] ${what}: settlement failed (${reason(err)}); retrying until the store answers`);
      // Stopping cuts the wait short: one last attempt, then the journal keeps the row.
      await sleep(wait, undefined, { signal: closing }).catch(() => undefined);
      wait = Math.min(wait * 2, MAX_RETRY_MS);
    }
  }
}

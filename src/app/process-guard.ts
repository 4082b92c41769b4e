/**
 * `gateway serve`'s last line of defence (docs/fleet.md, "When a service is down"): an error
 * nothing caught is logged with its stack and counted (`gateway_uncaught_errors_total{kind}`).
 * A rejected promise nobody awaited, or a connection error (a reset socket of PostgreSQL or
 * Redis whose client reconnects by itself), leaves nothing half-done: the process goes on. Any
 * other thrown exception may have left state inconsistent: the process stops, through the same
 * graceful stop as SIGTERM (open streams end and are billed), and exits 1.
 */
import { countUncaught } from "../observability/metrics.js";

const NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
const CONNECTION_MESSAGE = /Connection terminated|connection error|Connection is closed|socket hang up|read ECONNRESET|write EPIPE/i;

/** Errors a reconnecting client survives: the socket is gone, its client opens another. */
function survivable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return (typeof e?.code === "string" && NETWORK_CODES.has(e.code)) || (typeof e?.message === "string" && CONNECTION_MESSAGE.test(e.message));
}

const stackOf = (err: unknown) => (err instanceof Error ? (err.stack ?? err.message) : String(err));

/** Installs the handlers; `stop` runs the graceful stop (once) and exits with the code given. */
export function guardProcess(log: (line: string) => void, stop: (reason: string, code: number) => void): () => void {
  const onException = (err: unknown) => {
    countUncaught("exception");
    const fatal = !survivable(err);
    log(`[gateway] uncaught exception${fatal ? ", stopping" : " (a connection error: going on)"}: ${stackOf(err)}`);
    if (fatal) stop("uncaught exception", 1);
  };
  const onRejection = (err: unknown) => {
    countUncaught("rejection");
    log(`[gateway] unhandled promise rejection (going on): ${stackOf(err)}`);
  };
  process.on("uncaughtException", onException);
  process.on("unhandledRejection", onRejection);
  return () => {
    process.off("uncaughtException", onException);
    process.off("unhandledRejection", onRejection);
  };
}

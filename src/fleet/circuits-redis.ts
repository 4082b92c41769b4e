/**
 * Circuits shared by every gateway process (docs/fleet.md: a circuit opened by one process
 * is seen by all within 5 s). A process that opens or closes a circuit publishes it on one
 * channel under the prefix; the others apply it to their Health at once (pub/sub, no polling).
 * An open circuit is also kept as a key that expires when it half-opens, so a process that
 * starts or reconnects later picks up the ones still open. Losing all of it (a Redis restart)
 * only means each process finds out about a dead endpoint on its own again.
 */
import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";
import type { Health } from "../upstream/health.js";

interface Notice {
  from: string;
  provider: string;
  model: string;
  /** When the circuit half-opens (ms since the epoch); null: closed after a successful probe. */
  until: number | null;
}

export function shareCircuits(health: Health, client: Redis, subscriber: Redis, prefix: string, now: () => number = Date.now): { stop(): void } {
  const channel = `${prefix}circuits`;
  const keyOf = (provider: string, model: string) => `${prefix}circuit:${provider}:${model}`;
  const self = randomBytes(6).toString("base64url");

  health.onCircuitChange(({ provider, model, until }) => {
    const notice = JSON.stringify({ from: self, provider, model, until } satisfies Notice);
    const batch = client.pipeline();
    const ttl = until === null ? 0 : Math.ceil(until - now());
    if (ttl > 0) batch.set(keyOf(provider, model), notice, "PX", ttl);
    else batch.del(keyOf(provider, model));
    // Redis down: this process keeps its own circuit; the others find out from their own traffic.
    batch
      .publish(channel, notice)
      .exec()
      .catch(() => undefined);
  });

  subscriber.on("message", (on: string, text: string) => {
    if (on !== channel) return;
    const notice = parse(text);
    if (notice && notice.from !== self) health.applyPeerCircuit(notice.provider, notice.model, notice.until);
  });
  // Every (re)connection: circuits opened while this process was not listening.
  const catchUp = () =>
    void openCircuits(client, `${prefix}circuit:`).then(
      (notices) => {
        for (const n of notices) if (n.from !== self && n.until !== null && n.until > now()) health.applyPeerCircuit(n.provider, n.model, n.until);
      },
      () => undefined,
    );
  // SUBSCRIBE on every connection: one sent while Redis was down at start is dropped, not retried.
  const listen = () => {
    subscriber.subscribe(channel).catch(() => undefined);
    catchUp();
  };
  subscriber.on("ready", listen);
  client.on("ready", catchUp);
  if (subscriber.status === "ready") listen();
  else if (client.status === "ready") catchUp();

  return {
    stop() {
      health.onCircuitChange(undefined);
      subscriber.off("ready", listen);
      client.off("ready", catchUp);
    },
  };
}

function parse(text: string): Notice | undefined {
  try {
    const n = JSON.parse(text) as Notice;
    const valid = typeof n.from === "string" && typeof n.provider === "string" && typeof n.model === "string" && (n.until === null || Number.isFinite(n.until));
    return valid ? n : undefined;
  } catch {
    return undefined;
  }
}

/** The open-circuit keys (SCAN: never KEYS on a server other gateways and test runs share). */
async function openCircuits(redis: Redis, keyPrefix: string): Promise<Notice[]> {
  const pattern = `${keyPrefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
  const notices: Notice[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
    cursor = next;
    const values = keys.length ? await redis.mget(...keys) : [];
    for (const v of values) {
      const n = v === null ? undefined : parse(v);
      if (n) notices.push(n);
    }
  } while (cursor !== "0");
  return notices;
}

/**
 * The API key of a request (wherever http/credential.ts finds it; access/keys.ts checks it), then its rate-limit
 * window. A request without a valid key counts against its client IP's window instead.
 */
import { GatewayError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import type { KeyRecord } from "../store/index.js";
import { limitByIp, takeLimit } from "./rate-limit.js";
import type { RequestState } from "./request-state.js";

/**
 * The key, then the key's window (per-key `--rpm` overrides the config default). `ip` is
 * asked only when the key is refused: reading X-Forwarded-For is not the hot path's cost.
 */
export async function authenticate(gw: Gateway, state: RequestState, credential: string | null | undefined, ip: () => string): Promise<KeyRecord> {
  let key: KeyRecord;
  try {
    key = await gw.auth.authenticate(credential, gw.now());
  } catch (err) {
    if (err instanceof GatewayError) await limitByIp(gw, state, ip());
    throw err;
  }
  state.rec.keyId = key.id;
  state.rec.account = key.account;
  const tier = key.rpm ? { requests: key.rpm, window: 60 } : gw.config.limits.key;
  await takeLimit(gw, state, "API key", `key:${key.id}`, tier, true);
  return key;
}

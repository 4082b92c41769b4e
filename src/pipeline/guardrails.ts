/**
 * Where the pipeline runs the secret guardrail (docs/guardrails.md): on the request's raw body
 * before anything is parsed or forwarded, on a JSON answer before it is rendered, and on a
 * stream's items as they are relayed. All the logic is in src/guardrails/; this file picks
 * the request's mode and keeps its hits on the request's record. A failure inside the checker
 * refuses the request (fail closed).
 */
import { GatewayError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import { checkAnswer } from "../guardrails/answer.js";
import { guardFor } from "../guardrails/policy.js";
import { checkRequest, guardFailed } from "../guardrails/request.js";
import { guardedStream } from "../guardrails/stream.js";
import type { RequestState } from "../http/request-state.js";
import type { KeyRecord } from "../store/index.js";

/** The body to parse and forward (redacted, or as sent); throws the 400 under `block`. `state` null: a route without a request record (Gemini's countTokens on h3). */
export function guardRequest(gw: Pick<Gateway, "config">, state: RequestState | null, key: KeyRecord, raw: Buffer): Buffer {
  return failClosed(() => {
    const guard = guardFor(gw.config.guardrails.secrets, key.guardrails);
    if (!guard) return raw;
    if (state) ((state.guard = guard), (state.rec.guardrails = guard.hits));
    return guard.request ? checkRequest(guard, raw) : raw;
  });
}

/** A JSON answer, checked in place before it is rendered. */
export function guardAnswer(state: RequestState, answer: unknown): void {
  const guard = state.guard;
  if (guard?.response) failClosed(() => checkAnswer(guard, answer));
}

/** A stream's first item and the rest, checked as they are relayed; the same shape back. */
export async function guardStream<T, O extends { first: T; rest: AsyncIterator<T> }>(state: RequestState, opened: O): Promise<O> {
  const guard = state.guard;
  if (!guard?.response) return opened;
  return { ...opened, ...(await guardedStream(guard, opened.first, opened.rest)) };
}

function failClosed<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw guardFailed(err);
  }
}

/**
 * One request as the pipeline's stages fill it in (pipeline/stage-runs.ts): each stage reads
 * what the earlier ones left and adds its own. What a stage may assume is set is said by the
 * order of pipeline/stages.ts STAGES.
 */
import type { Route, RoutedEndpoint } from "../catalog/catalog.js";
import type { Usage } from "../core/chat-request.js";
import type { Tags } from "../core/request-tags.js";
import type { Gateway } from "../gateway.js";
import type { Exchange } from "../http/exchange.js";
import type { Attempt, KeyRecord } from "../store/index.js";
import type { Endpoint, Job, Parsed } from "./endpoint.js";

export interface Flow<Req extends Parsed = Parsed, Answer = unknown> {
  gw: Gateway;
  ex: Exchange;
  ep: Endpoint<Req, Answer>;
  /** auth */
  key: KeyRecord;
  /** guardrails: the body as sent (redacted under `redact`); parse: its request form, its tags, the memo's key for its bytes when the cache could answer it */
  raw: Buffer;
  digest: string | undefined;
  body: Req;
  tags: Tags | null;
  /** route: the models to try, in order, and which one this is */
  routes: Route[];
  model: number;
  /** cache: the first model's `keep`, storing a successful answer */
  keep: Job["keep"];
  /** every model's attempts, on the row of the request */
  attempts: Attempt[];
  /** hold: this model's job */
  job: Job<Req>;
  /** adapter: the answer and the endpoint that gave it; settle: its usage */
  answer: { value: Answer; endpoint: RoutedEndpoint } | undefined;
  usage: Usage;
}

/** A stage's verdict: go on with the next stage, or the request is answered. */
export const ANSWERED = true;
export type Next = boolean | void;

export function newFlow<Req extends Parsed, Answer>(gw: Gateway, ex: Exchange, ep: Endpoint<Req, Answer>): Flow<Req, Answer> {
  // Filled in stage by stage: a field is read only by a stage after the one that sets it.
  return { gw, ex, ep, routes: [], model: 0, attempts: [], answer: undefined, digest: undefined, tags: null, keep: undefined } as unknown as Flow<Req, Answer>;
}

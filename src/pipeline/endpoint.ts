/**
 * What an endpoint plugs into the request pipeline (pipeline/run.ts): a function for each
 * stage named in pipeline/stages.ts ENDPOINT_STAGES (its request form in, its routing and
 * worst-case hold, its upstream call, its answer out) and how its usage is measured. The
 * pipeline owns the other stages (auth, limits, settle) and everything between, once for
 * every endpoint; an endpoint folder under endpoints/ owns only its wire format.
 */
import type { Bill } from "../billing/bill.js";
import type { Route, RoutedEndpoint } from "../catalog/catalog.js";
import type { ChatRequest, Usage } from "../core/chat-request.js";
import type { GatewayError } from "../core/errors.js";
import type { Gateway } from "../gateway.js";
import type { ErrorEnvelope } from "../http/error-reply.js";
import type { Exchange } from "../http/exchange.js";
import type { CallContext, NativeApis, StreamDelta, UpstreamEvent, UpstreamRequest } from "../plugin/contract.js";
import type { ApiEndpoint, Attempt, KeyRecord } from "../store/index.js";
import type { EndpointStage } from "./stages.js";

/**
 * What an endpoint's own functions may use of the gateway (docs/architecture.md "Services"):
 * the config, the store, the catalog, the account's BYOK keys and the clock. The upstream
 * client, the router, the journal, the cache and the observer are the pipeline's stages' own.
 */
export type EndpointServices = Pick<Gateway, "config" | "store" | "catalog" | "byok" | "now">;

/** The adapter stage's: the upstream client besides (pipeline/chat-upstream.ts, pipeline/embed-upstream.ts). */
export type AdapterServices = EndpointServices & Pick<Gateway, "upstream">;

/** The least the pipeline reads of any endpoint's request. */
export interface Parsed {
  model: string;
  /** Only an endpoint with `renderStream` streams. */
  stream?: boolean | undefined;
}

export interface Job<Req extends Parsed = Parsed> {
  requestId: string;
  keyId: string;
  body: Req;
  route: Route;
  bill: Bill;
  attempts: Attempt[];
  /** Keeps a successful answer in the response cache (pipeline/cache-step.ts); absent: this request may not store. */
  keep?: (answer: unknown, usage: Usage) => void;
  /** A fallback model follows this one (docs/routing.md): its failover is one round. */
  moreModels?: boolean;
}

/** The account's own key for a plugin, if it has one (access/byok.ts). */
type ByokKey = (plugin: string) => string | undefined;

/** The functions an endpoint runs at its stages of the pipeline. */
type EndpointStages<Req extends Parsed, Answer> = {
  [S in EndpointStage]: StageFunctions<Req, Answer>[S];
};

interface StageFunctions<Req extends Parsed, Answer> {
  /**
   * The body as the endpoint's request; a promise only when reading needs the store. `ex` for
   * what an API carries outside its body (a model in the path, a header forwarded natively).
   */
  parse(gw: EndpointServices, raw: Buffer, key: KeyRecord, ex: Exchange): Req | Promise<Req>;
  /** The catalog's route for the model narrowed to endpoints that can serve this request (else a 400). */
  route(found: Route, req: Req): Route;
  /** Holds the worst case against the balance and the key's budget (billing/bill.ts). */
  hold(gw: EndpointServices, key: KeyRecord, route: Route, req: Req, requestId: string): Promise<Bill>;
  /** One attempt on one routed endpoint; failover around it is the router's. */
  adapter(gw: AdapterServices, job: Job<Req>, e: RoutedEndpoint, signal: AbortSignal): Promise<Answer>;
  /** Writes the answer, already settled; a promise only when the endpoint writes before replying. */
  render(gw: EndpointServices, ex: Exchange, job: Job<Req>, value: Answer, usage: Usage): void | Promise<void>;
}

export interface Endpoint<Req extends Parsed, Answer> extends EndpointStages<Req, Answer> {
  /** The ledger's endpoint column. */
  readonly name: ApiEndpoint;
  /** The route's path, the observer's `route` label. */
  readonly path: string;
  /** The vendor a bare model id means on this route (`anthropic` on /v1/messages); absent: the one vendor that has it. */
  readonly vendor?: string;
  /** The 404 for a model (after aliases) the catalog cannot route for this account; `vendor` is the route's own. */
  missing(gw: EndpointServices, requested: string, byokKey: ByokKey, vendor?: string): GatewayError;
  /** The usage the provider reported, checked; undefined when it reported none. */
  usage(job: Job<Req>, value: Answer): Usage | undefined;
  /** Usage counted here for an answer without reported usage (settled as `estimated`). */
  estimate(job: Job<Req>, value: Answer): Promise<Usage>;
  /** The adapter's chat deltas written as this API's stream, by the stream stage (pipeline/stream.ts); absent: never streams. Only a chat-form endpoint streams. */
  stream?: Req extends ChatRequest ? RenderStream<ChatRequest> : never;
  /** This API's native form, where a provider speaks it (pipeline/native.ts); absent: always translated. */
  native?: Req extends ChatRequest ? AnyNativePath<Answer> : never;
  /**
   * The response cache (docs/cache.md): present on an endpoint whose answers may be cached;
   * `replay` writes a kept answer as this endpoint's stream. A JSON hit goes through `render`.
   */
  cache?: { replay(gw: EndpointServices, ex: Exchange, job: Job<Req>, answer: Answer, usage: Usage): Promise<void> };
  /** Headers this API adds to a successful answer, JSON or stream, just before its head goes out. */
  answerHead?(ex: Exchange, job: Job<Req>): void;
  /** The error object wrapped as this API wraps it (Anthropic's `{type: "error", error}`); absent: `{error}`. */
  errorEnvelope?: ErrorEnvelope;
  /** An error as this API names things (Responses renames chat's fields); absent: as is. */
  inOwnTerms?(err: unknown): unknown;
}

/** Writes a stream from its first delta (or, natively relayed, its first upstream event); resolves with what was delivered, however it ended. */
export type RenderStream<Req extends Parsed, T = StreamDelta> = (
  gw: EndpointServices,
  ex: Exchange,
  job: Job<Req>,
  opened: OpenedStream<T>,
  delivered: { text: string },
) => Promise<StreamResult>;

/** A stream whose first delta arrived: failover is over, the client gets bytes from here. */
interface OpenedStream<T = StreamDelta> {
  first: T;
  rest: AsyncIterator<T>;
  endpoint: RoutedEndpoint;
}

export interface StreamResult {
  usage: Usage | null;
  /** The usage was counted here (the upstream sent none), not reported by the provider. */
  estimated: boolean;
  /** Text and tool arguments delivered, for estimating usage when the upstream gave none. */
  text: string;
  outcome: "ok" | "error" | "cancelled";
}

/** An API of the gateway that a provider may speak natively (the keys of a plugin's `native`). */
export type NativeApi = keyof NativeApis;

/** A plugin's capability for one API. */
export type NativeCapability<A extends NativeApi = NativeApi> = NonNullable<NativeApis[A]>;

/**
 * An API's native form (pipeline/native.ts): which plugin capability serves it, what the call
 * carries and how its answer and events are read. Methods, so a path for one API is a path.
 */
export interface NativePath<Answer, A extends NativeApi = NativeApi> {
  api: A;
  /** A route is served natively only when every endpoint of it is (a mixed route translated throughout); default: per endpoint. */
  wholeRoute?: boolean;
  /** The output bound the call carries; default: the request's output budget. */
  maxOutput?(job: Job<ChatRequest>): number | undefined;
  /** The call in the API's own form (the upstream model is `ctx.model`). */
  request(n: NativeCapability<A>, job: Job<ChatRequest>, ctx: CallContext): UpstreamRequest | Promise<UpstreamRequest>;
  /** A JSON answer as the endpoint's answer, usage checked; throw on one not in the API's format. */
  answer(n: NativeCapability<A>, job: Job<ChatRequest>, json: unknown): Answer;
  /** The decoded stream as the API's events (Bedrock unwraps its chunks); absent: as they come. */
  events?(n: NativeCapability<A>, decoded: AsyncIterable<UpstreamEvent>): AsyncIterable<UpstreamEvent>;
  /** A first event that is the provider saying it failed: failed over like an error status. */
  failed?(data: unknown): boolean;
  /** The events relayed to the client in the API's stream form. */
  relay: RenderStream<ChatRequest, UpstreamEvent>;
}

/** A NativePath for one of the APIs, typed by its `api`. */
type AnyNativePath<Answer> = { [A in NativeApi]: NativePath<Answer, A> }[NativeApi];

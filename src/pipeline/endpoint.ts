/**
 * What an endpoint plugs into the request pipeline (pipeline/run.ts): its request form in,
 * its answer and stream forms out. The pipeline owns every step between (auth, limits,
 * route, hold, adapter with failover, settle); an endpoint folder under endpoints/ owns only
 * its wire format.
 */
import type { Bill } from "../billing/bill.js";
import type { Route, RoutedEndpoint } from "../catalog/catalog.js";
import type { ChatRequest, Usage } from "../core/chat-request.js";
import type { Gateway } from "../gateway.js";
import type { Exchange } from "../http/exchange.js";
import type { Completion, StreamDelta } from "../plugin/contract.js";
import type { ApiEndpoint, Attempt, KeyRecord } from "../store/index.js";

export interface Job {
  requestId: string;
  keyId: string;
  body: ChatRequest;
  route: Route;
  bill: Bill;
  attempts: Attempt[];
}

/** A stream whose first delta arrived: failover is over, the client gets bytes from here. */
export interface OpenedStream {
  first: StreamDelta;
  rest: AsyncIterator<StreamDelta>;
  endpoint: RoutedEndpoint;
}

/** What a route adds to the pipeline: its request form and its answer forms. */
export interface Renderer {
  /** The ledger's endpoint column when not chat. */
  readonly endpoint?: ApiEndpoint;
  /** The body as the internal request; a promise only when reading needs the store. */
  read(gw: Gateway, raw: Buffer, key: KeyRecord): ChatRequest | Promise<ChatRequest>;
  /** Writes the answer, already settled; a promise only when the route writes before replying. */
  answer(gw: Gateway, ex: Exchange, job: Job, value: Completion, usage: Usage): void | Promise<void>;
  /** Writes the stream from its first delta; resolves with what was delivered, however it ended. */
  stream(gw: Gateway, ex: Exchange, job: Job, opened: OpenedStream, delivered: { text: string }): Promise<StreamResult>;
}

export interface StreamResult {
  usage: Usage | null;
  /** The usage was counted here (the upstream sent none), not reported by the provider. */
  estimated: boolean;
  /** Text and tool arguments delivered, for estimating usage when the upstream gave none. */
  text: string;
  outcome: "ok" | "error" | "cancelled";
}

/**
 * What reading an answer needs to know about the request that asked for it: the name of
 * the forced tool standing in for `response_format`, and the tool ids that were rewritten.
 * The core hands `chat.request`, `chat.response` and `chat.stream` the same CallContext
 * object for one upstream call (src/pipeline/chat-upstream.ts `sendChat`), so the request side files the state
 * under it; a WeakMap lets it go with the call.
 */
import type { CallContext } from "../../src/plugin/contract.js";
import type { IdMap } from "./tool-ids.js";

export interface CallState {
  /** The tool whose input is the answer text (response_format json_object / json_schema). */
  jsonTool?: string;
  ids: IdMap;
}

const NONE: CallState = { ids: new Map() };
const states = new WeakMap<CallContext, CallState>();

export function remember(ctx: CallContext, state: CallState): void {
  states.set(ctx, state);
}

export const stateOf = (ctx: CallContext | undefined): CallState => (ctx && states.get(ctx)) || NONE;

/**
 * What the answer's reader must know about the request it answers: the name of the forced tool
 * standing for `response_format` (json-output.ts), whose input is the answer's content. The core
 * hands one CallContext object to `chat.request` and then to `chat.response` / `chat.stream` of
 * the same attempt (src/pipeline/chat-upstream.ts `sendChat`), so it keys this state; a WeakMap lets it go with the call.
 */
import type { CallContext } from "../../src/plugin/contract.js";

const jsonTools = new WeakMap<CallContext, string>();

export function rememberJsonTool(ctx: CallContext, name: string): void {
  jsonTools.set(ctx, name);
}

/** The forced JSON tool's name for this call, or undefined when the answer is a normal one. */
export function jsonToolOf(ctx: CallContext | undefined): string | undefined {
  return ctx ? jsonTools.get(ctx) : undefined;
}

/**
 * The native form of /v1/messages (docs/messages.md), for the pipeline's native step
 * (pipeline/native.ts): the client's body to a provider that speaks the Messages API (its
 * `native.messages`), unchanged but for `model`; its answer back unchanged but for the id and
 * the usage, which are the gateway's record. Usage is the provider's own, read by the plugin
 * (cache reads and writes apart) and checked like every reported usage; a stream is relayed
 * event by event (relay.ts).
 */
import { checkedUsage } from "../../billing/usage-check.js";
import type { Usage } from "../../core/chat-request.js";
import type { Completion } from "../../plugin/contract.js";
import type { NativePath } from "../../pipeline/endpoint.js";
import { nativeOf } from "../../pipeline/native.js";
import { contextOf, messageId } from "./context.js";
import { relayNative } from "./relay.js";
import { wireUsage } from "./render.js";
import { streamCommon } from "./stream.js";

export interface NativeAnswer {
  kind: "native";
  json: Record<string, unknown>;
  usage: Usage | undefined;
}

export type MessagesAnswer = NativeAnswer | { kind: "chat"; completion: Completion };

export const MESSAGES_NATIVE: NativePath<MessagesAnswer, "messages"> = {
  api: "messages",
  // The client's own max_tokens: a translated route may have cut the chat form's to its model's limit.
  maxOutput: (job) => contextOf(job).req.max_tokens,
  request(n, job, ctx) {
    const c = contextOf(job);
    return n.request({ ...c.raw, model: ctx.model }, c.headers, ctx);
  },
  answer(n, job, json) {
    if (!isMessage(json)) throw new Error("the answer is not a Messages API message");
    const usage = n.usage(json.usage);
    return { kind: "native", json, usage: usage && checkedUsage(usage, job.route.model, 1) };
  },
  events: (n, decoded) => (n.events ? n.events(decoded) : decoded),
  failed: (data) => (data as { type?: unknown } | null)?.type === "error",
  relay: (_gw, ex, job, opened, delivered) =>
    relayNative(ex, {
      ...streamCommon(job, delivered),
      id: messageId(job),
      first: opened.first,
      rest: opened.rest,
      native: nativeOf(opened.endpoint, "messages")!,
    }),
};

function isMessage(json: unknown): json is Record<string, unknown> & { content: unknown[] } {
  return json !== null && typeof json === "object" && Array.isArray((json as { content?: unknown }).content);
}

/** The provider's message with the gateway's id and usage. */
export function renderNative(a: NativeAnswer, id: string, usage: Usage): Record<string, unknown> {
  return { ...a.json, id, usage: { ...(a.json.usage as object | undefined), ...wireUsage(usage) } };
}

/** Text, tool input and thinking of a native message, for an estimate when it reported no usage. */
export function nativeText(json: Record<string, unknown>): string {
  return (json.content as Array<Record<string, unknown>>)
    .map((b) => [b.text, b.thinking, b.name, b.input === undefined ? undefined : JSON.stringify(b.input)].filter((s) => typeof s === "string").join(""))
    .join("");
}

/**
 * The native path (docs/messages.md): the client's body to a provider that speaks the Messages
 * API (plugin `nativeMessages`), unchanged but for `model`; its answer back unchanged but for
 * the id and the usage, which are the gateway's record. Usage is the provider's own, read by
 * the plugin (cache reads and writes apart) and checked like every reported usage.
 */
import { checkedUsage } from "../../billing/usage-check.js";
import type { RoutedEndpoint } from "../../catalog/catalog.js";
import type { ChatRequest, Usage } from "../../core/chat-request.js";
import type { Gateway } from "../../gateway.js";
import type { Job } from "../../pipeline/endpoint.js";
import { malformed } from "../../pipeline/failover.js";
import type { CallContext, UpstreamEvent } from "../../plugin/contract.js";
import { capped, readJson } from "../../upstream/body.js";
import { decodeSse } from "../../upstream/relay.js";
import { contextOf, nativeOf } from "./context.js";
import { wireUsage } from "./render.js";

export interface NativeAnswer {
  kind: "native";
  json: Record<string, unknown>;
  usage: Usage | undefined;
}

/** The upstream call for one endpoint, JSON or streamed. */
export async function sendNative(gw: Gateway, job: Job<ChatRequest>, e: RoutedEndpoint, signal: AbortSignal) {
  const n = nativeOf(e)!;
  const c = contextOf(job);
  const ctx: CallContext = { settings: e.instance.settings, apiKey: e.apiKey, model: e.model, stream: c.req.stream === true, maxOutput: c.req.max_tokens };
  const req = await n.request({ ...c.raw, model: e.model }, c.headers, ctx);
  return { n, res: await gw.upstream.send(req, e.instance.plugin, signal) };
}

/** A native stream, open up to its headers: the provider's Messages events (Bedrock's unwrapped by the plugin). */
export async function openNativeStream(gw: Gateway, job: Job<ChatRequest>, e: RoutedEndpoint, signal: AbortSignal): Promise<AsyncIterator<UpstreamEvent>> {
  const { n, res } = await sendNative(gw, job, e, signal);
  const caps = gw.config.server.upstream;
  const plugin = e.instance.plugin;
  const decoded = plugin.decodeStream ? plugin.decodeStream(capped(res.body, caps.maxResponseBytes)) : decodeSse(res.body, caps);
  return (n.events ? n.events(decoded) : decoded)[Symbol.asyncIterator]();
}

export async function nativeAnswer(gw: Gateway, job: Job<ChatRequest>, e: RoutedEndpoint, signal: AbortSignal): Promise<NativeAnswer> {
  const { n, res } = await sendNative(gw, job, e, signal);
  try {
    const json = await readJson(res.body, gw.config.server.upstream.maxResponseBytes);
    if (!isMessage(json)) throw new Error("the answer is not a Messages API message");
    const usage = n.usage(json.usage);
    return { kind: "native", json, usage: usage && checkedUsage(usage, job.route.model, 1) };
  } catch (err) {
    throw malformed(err);
  }
}

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

/**
 * The native upstream step (docs/architecture.md "Native or translated"): on an endpoint whose
 * plugin speaks the request's API itself (its `native` capability for that API: Anthropic's
 * Messages, Google's generateContent, OpenAI's Responses), the adapter stage sends the
 * client's request in that API's own form instead of translating it through chat. The choice
 * is made here, per attempt, for every endpoint; an endpoint says only what its native call
 * carries and how its answer and events are read (its NativePath, pipeline/endpoint.ts).
 */
import { outputBudget } from "../billing/bill.js";
import type { Route, RoutedEndpoint } from "../catalog/catalog.js";
import type { ChatRequest } from "../core/chat-request.js";
import type { CallContext, UpstreamEvent } from "../plugin/contract.js";
import { capped, readJson } from "../upstream/body.js";
import { decodeSse } from "../upstream/relay.js";
import type { UpstreamResponse } from "../upstream/upstream.js";
import type { AdapterServices, Job, NativeApi, NativeCapability, NativePath } from "./endpoint.js";
import { malformed } from "./failover.js";

/** The endpoint's capability for `api` when it takes this upstream model natively (Bedrock: Claude models only). */
export function nativeOf<A extends NativeApi>(e: RoutedEndpoint, api: A): NativeCapability<A> | undefined {
  const n = e.instance.plugin.native?.[api];
  if (!n) return undefined;
  const accepts = (n as { accepts?(model: string): boolean }).accepts;
  return accepts && !accepts(e.model) ? undefined : (n as NativeCapability<A>);
}

/** Every endpoint of the route speaks `api`. */
export function nativeRoute(route: Route, api: NativeApi): boolean {
  return route.endpoints.length > 0 && route.endpoints.every((e) => nativeOf(e, api) !== undefined);
}

/** The capability this attempt uses, or undefined when it is translated. */
export function servedNatively(path: NativePath<unknown> | undefined, route: Route, e: RoutedEndpoint): NativeCapability | undefined {
  if (!path || (path.wholeRoute && !nativeRoute(route, path.api))) return undefined;
  return nativeOf(e, path.api);
}

/** One JSON attempt on a native endpoint: the answer read within the cap and handed to the endpoint's reader. */
export async function nativeAnswer<Answer>(
  gw: AdapterServices,
  job: Job<ChatRequest>,
  e: RoutedEndpoint,
  path: NativePath<Answer>,
  n: NativeCapability,
  signal: AbortSignal,
): Promise<Answer> {
  const res = await sendNative(gw, job, e, path, n, false, signal);
  try {
    return path.answer(n, job, await readJson(res.body, gw.config.server.upstream.maxResponseBytes));
  } catch (err) {
    throw malformed(err);
  }
}

/** One streamed attempt on a native endpoint, open up to its headers: the API's events, decoded. */
export async function openNative(
  gw: AdapterServices,
  job: Job<ChatRequest>,
  e: RoutedEndpoint,
  path: NativePath<unknown>,
  n: NativeCapability,
  signal: AbortSignal,
): Promise<AsyncIterator<UpstreamEvent>> {
  const res = await sendNative(gw, job, e, path, n, true, signal);
  const caps = gw.config.server.upstream;
  const plugin = e.instance.plugin;
  const decoded = plugin.decodeStream ? plugin.decodeStream(capped(res.body, caps.maxResponseBytes)) : decodeSse(res.body, caps);
  return (path.events ? path.events(n, decoded) : decoded)[Symbol.asyncIterator]();
}

function sendNative(
  gw: AdapterServices,
  job: Job<ChatRequest>,
  e: RoutedEndpoint,
  path: NativePath<unknown>,
  n: NativeCapability,
  stream: boolean,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const maxOutput = path.maxOutput ? path.maxOutput(job) : outputBudget(job.body, job.route);
  const ctx: CallContext = { settings: e.instance.settings, apiKey: e.apiKey, model: e.model, stream, maxOutput };
  return sendWith(gw, e, path.request(n, job, ctx), signal);
}

/** The one place a native request leaves the pipeline (count_tokens' too: pipeline/count.ts). */
export async function sendWith(
  gw: AdapterServices,
  e: RoutedEndpoint,
  request: ReturnType<NativePath<unknown>["request"]>,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  return gw.upstream.send(await request, e.instance.plugin, signal);
}

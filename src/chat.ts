/**
 * POST /v1/chat/completions, top to bottom:
 * auth → limits → validate → route → reserve → adapter (with failover) → settle → respond.
 */
import type { H3Event } from "h3";
import { openBill, outputBudget, type Bill } from "./billing.js";
import { readJsonBody } from "./body.js";
import type { Route, RoutedEndpoint } from "./catalog.js";
import { GatewayError, invalidRequest, modelNotFound } from "./errors.js";
import type { Gateway } from "./gateway.js";
import type { CallContext, Completion, StreamDelta } from "./provider.js";
import { authenticate, stateOf, takeLimit, type RequestState } from "./request.js";
import type { ChatCompletion, ChatRequest, Usage } from "./schema.js";
import type { Attempt } from "./store/index.js";
import { sseStream } from "./stream.js";
import { countPromptTokens, countTextTokens } from "./tokens.js";
import { decodeSse, UpstreamFailure } from "./upstream.js";
import { validate } from "./validate.js";

export async function chatCompletions(event: H3Event, gw: Gateway): Promise<ChatCompletion | Response> {
  const state = stateOf(event);
  const key = authenticate(gw, event);
  const body = validate(gw.requestSchema, await readJsonBody(event.req, gw.config.server.maxBodyBytes)) as ChatRequest;
  checkMessages(body);
  const byok = gw.byok.forAccount(key.account);
  const route = gw.catalog.route(body.model, (plugin) => byok.get(plugin));
  if (!route) throw modelNotFound(body.model);
  const modelTier = gw.config.limits.models[route.model.id];
  if (modelTier) takeLimit(gw, state, "model", `model:${route.model.id}`, modelTier, false);
  const bill = openBill(gw.store, key, route, body, state.id, gw.now());
  const attempts: Attempt[] = [];
  try {
    return body.stream
      ? await streamed(gw, event, state, { body, route, bill, attempts })
      : await completed(gw, event, state, { body, route, bill, attempts });
  } catch (err) {
    const status = err instanceof GatewayError ? err.status : 500;
    bill.settle({ endpoint: null, usage: null, usageSource: "none", status: event.req.signal.aborted ? "cancelled" : "error", httpStatus: status, attempts }, gw.now());
    throw err;
  }
}

interface Job {
  body: ChatRequest;
  route: Route;
  bill: Bill;
  attempts: Attempt[];
}

function checkMessages(body: ChatRequest): void {
  body.messages.forEach((m, i) => {
    if (m.role === "tool" && !m.tool_call_id) throw invalidRequest(`messages.${i}.tool_call_id: Required`);
  });
}

function callContext(e: RoutedEndpoint, job: Job): CallContext {
  return { settings: e.instance.settings, apiKey: e.apiKey, model: e.model, stream: job.body.stream === true, maxOutput: outputBudget(job.body, job.route) };
}

/** An upstream answer the adapter cannot read is that endpoint's failure: fail over. */
function malformed(cause: unknown): GatewayError {
  return cause instanceof GatewayError ? cause : new UpstreamFailure("failure", true, null, null, cause);
}

async function completed(gw: Gateway, event: H3Event, state: RequestState, job: Job): Promise<ChatCompletion> {
  const signal = event.req.signal;
  const { value, endpoint } = await gw.router.run(job.route, { byokOnly: job.bill.byokOnly, signal, requestId: state.id, attempts: job.attempts }, async (e) => {
    const ctx = callContext(e, job);
    const plugin = e.instance.plugin;
    const res = await gw.upstream.send(await plugin.chat.request(job.body, ctx), plugin, signal);
    try {
      return plugin.chat.response(await res.body.json(), ctx);
    } catch (err) {
      throw malformed(err);
    }
  });
  const measured = value.usage;
  const usage = measured ?? (await estimate(job.body, completionText(value)));
  job.bill.settle({ endpoint, usage, usageSource: measured ? "provider" : "estimated", status: "ok", httpStatus: 200, attempts: job.attempts }, gw.now());
  return {
    id: `chatcmpl-${state.id.slice(4)}`,
    object: "chat.completion",
    created: Math.floor(gw.now() / 1000),
    model: job.route.model.id,
    choices: value.choices.map((c) => ({
      index: c.index,
      message: c.tool_calls?.length ? { role: "assistant", content: c.content, tool_calls: c.tool_calls } : { role: "assistant", content: c.content },
      finish_reason: c.finish_reason,
    })),
    usage,
  };
}

async function streamed(gw: Gateway, event: H3Event, state: RequestState, job: Job): Promise<Response> {
  const signal = event.req.signal;
  const { value, endpoint } = await gw.router.run(job.route, { byokOnly: job.bill.byokOnly, signal, requestId: state.id, attempts: job.attempts }, async (e) => {
    const ctx = callContext(e, job);
    const plugin = e.instance.plugin;
    const res = await gw.upstream.send(await plugin.chat.request(job.body, ctx), plugin, signal);
    const events = plugin.decodeStream ? plugin.decodeStream(res.body) : decodeSse(res.body);
    const rest = plugin.chat.stream(events, ctx)[Symbol.asyncIterator]();
    // Failover is allowed until the first byte goes to the client: wait for the first delta.
    let first: IteratorResult<StreamDelta>;
    try {
      first = await rest.next();
    } catch (err) {
      throw malformed(err);
    }
    if (first.done) throw malformed(new Error("upstream stream ended before any output"));
    return { first: first.value, rest };
  });
  const body = sseStream({
    id: `chatcmpl-${state.id.slice(4)}`,
    created: Math.floor(gw.now() / 1000),
    model: job.route.model.id,
    requestId: state.id,
    first: value.first,
    rest: value.rest,
    estimate: (text) => estimate(job.body, text),
    onEnd: (result) => {
      const settling = (async () => {
        const usage = result.usage ?? (result.text ? await estimate(job.body, result.text) : null);
        const status = result.outcome;
        job.bill.settle({ endpoint, usage, usageSource: result.usage ? "provider" : usage ? "estimated" : "none", status, httpStatus: 200, attempts: job.attempts }, gw.now());
      })();
      gw.pending.add(settling);
      void settling.finally(() => gw.pending.delete(settling));
    },
  });
  return new Response(body, {
    headers: { ...state.headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
}

function completionText(c: Completion): string {
  return c.choices.map((ch) => (ch.content ?? "") + (ch.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join("")).join("");
}

async function estimate(body: ChatRequest, text: string): Promise<Usage> {
  const prompt = await countPromptTokens(body.messages);
  const completion = await countTextTokens(text);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

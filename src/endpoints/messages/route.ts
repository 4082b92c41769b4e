/**
 * POST /v1/messages, Anthropic's Messages API (docs/messages.md), through the one request
 * pipeline (pipeline/run.ts). Its request form is the chat translation (translate.ts), kept
 * with the client's own body (context.ts); the pipeline's native step (pipeline/native.ts) serves each routed endpoint natively when
 * its provider speaks the Messages API (plugin `native.messages`: the body unchanged), else
 * translated through chat's adapter call (pipeline/chat-upstream.ts). Errors in Anthropic's
 * envelope.
 */
import { openBill } from "../../billing/bill.js";
import { needsOf, narrowRoute } from "../../catalog/capabilities.js";
import type { Route } from "../../catalog/catalog.js";
import { modelMissing, withAliasHint } from "../../catalog/model-hint.js";
import { requireChatModel } from "../../catalog/model-kind.js";
import type { ChatRequest } from "../../core/chat-request.js";
import { validate } from "../../core/validate.js";
import { parseJsonBody } from "../../http/body.js";
import { keepRouting, takeRouting } from "../../core/routing-fields.js";
import type { ErrorEnvelope } from "../../http/error-reply.js";
import type { Exchange } from "../../http/exchange.js";
import { CHAT_UPSTREAM, estimate } from "../../pipeline/chat-upstream.js";
import type { Endpoint } from "../../pipeline/endpoint.js";
import { definesStages } from "../../pipeline/stages.js";
import type { MessagesHeaders } from "../../plugin/contract.js";
import { contextOfRequest, messageId, remember } from "./context.js";
import { nativeOf } from "../../pipeline/native.js";
import { MESSAGES_NATIVE, nativeText, renderNative, type MessagesAnswer } from "./native.js";
import { promptBound } from "./prompt-bound.js";
import { messageOf } from "./render.js";
import { MessagesRequest } from "./schema.js";
import { streamCommon, writeMessageStream } from "./stream.js";
import { toChatRequest } from "./translate.js";

/** Anthropic's error envelope around the gateway's error object. */
export const anthropicEnvelope: ErrorEnvelope = (error) => ({ type: "error", error });

/** The version Anthropic's API has; any other a client sends is forwarded as sent. */
const DEFAULT_VERSION = "2023-06-01";

export function messagesHeaders(ex: Exchange): MessagesHeaders {
  const beta = ex.header("anthropic-beta");
  return { version: ex.header("anthropic-version") ?? DEFAULT_VERSION, ...(beta ? { beta } : {}) };
}

export const MESSAGES: Endpoint<ChatRequest, MessagesAnswer> = definesStages("messages", {
  name: "messages",
  path: "/v1/messages",
  vendor: "anthropic",
  missing: (gw, requested, byokKey, vendor) => withAliasHint(modelMissing(gw.catalog, requested, byokKey, vendor), requested),
  parse(_gw, raw, _key, ex) {
    const json = parseJsonBody(raw);
    const routing = takeRouting(json); // the gateway's own fields (docs/routing.md): never relayed natively
    const req = validate(MessagesRequest, json);
    const { chat, problems } = toChatRequest(req);
    keepRouting(chat, routing);
    remember(chat, { raw: json as Record<string, unknown>, req, headers: messagesHeaders(ex), problems, promptBound: promptBound(raw.byteLength, req) });
    return chat;
  },
  route: routeMessages,
  async hold(gw, key, route, chat, requestId) {
    const bill = await openBill(gw.store, key, route, chat, requestId, gw.now());
    const { promptBound: prompt, req } = contextOfRequest(chat);
    // What the gateway counts itself is bounded by what the request asked for (docs/limits.md); a beta may lift the catalog's output limit.
    bill.bound = () => ({ prompt, completion: req.max_tokens });
    return bill;
  },
  adapter: async (gw, job, e, signal) => ({ kind: "chat", completion: await CHAT_UPSTREAM.adapter(gw, job, e, signal) }),
  usage: (_job, value) => (value.kind === "native" ? value.usage : value.completion.usage),
  estimate: (job, value) => (value.kind === "native" ? estimate(job.body, nativeText(value.json)) : CHAT_UPSTREAM.estimate(job, value.completion)),
  render(_gw, ex, job, value, usage) {
    const id = messageId(job);
    const body = value.kind === "native" ? renderNative(value, id, usage) : messageOf({ id, model: job.route.model.id }, value.completion, usage);
    ex.json(200, JSON.stringify(body));
  },
  stream: (_gw, ex, job, opened, delivered) =>
    writeMessageStream(ex, {
      ...streamCommon(job, delivered),
      head: { id: messageId(job), model: job.route.model.id },
      first: opened.first,
      rest: opened.rest,
    }),
  native: MESSAGES_NATIVE,
  errorEnvelope: anthropicEnvelope,
});

/**
 * Native endpoints serve any request; translated ones only a request whose translation had no
 * problem, narrowed by what it needs like chat. Thinking is a hint to a model without
 * reasoning: dropped rather than refused (docs/messages.md). Nothing left: the first 400.
 */
function routeMessages(found: Route, chat: ChatRequest): Route {
  const native = found.endpoints.filter((e) => nativeOf(e, "messages"));
  const others = found.endpoints.filter((e) => !nativeOf(e, "messages"));
  let translated: Route["endpoints"] = [];
  if (others.length) {
    try {
      const { problems } = contextOfRequest(chat);
      if (problems.length) throw problems[0];
      translated = narrowTranslated({ ...found, endpoints: others }, chat).endpoints;
    } catch (err) {
      if (!native.length) throw err;
    }
  }
  if (!others.length) requireChatModel(found.model);
  // Claude Code asks for 128,000 output tokens whatever the model: a translated model gets at most its own limit.
  const limit = found.model.maxOutput;
  if (translated.length && limit && chat.max_tokens !== undefined && chat.max_tokens > limit) chat.max_tokens = limit;
  const endpoints = [...native, ...translated];
  return endpoints.length === found.endpoints.length ? found : { ...found, endpoints };
}

function narrowTranslated(route: Route, chat: ChatRequest): Route {
  try {
    return narrowRoute(route, needsOf(chat));
  } catch (err) {
    if (!chat.reasoning_effort) throw err;
    const effort = chat.reasoning_effort;
    delete chat.reasoning_effort;
    try {
      return narrowRoute(route, needsOf(chat));
    } catch {
      chat.reasoning_effort = effort;
      throw err;
    }
  }
}

/**
 * POST /v1/responses through the one request pipeline (pipeline/run.ts): this file is its
 * Endpoint's parse and render stages (the request read into the internal ChatRequest, the
 * answer written as a Response object or its event stream; routing, hold and the adapter
 * call are chat's, pipeline/chat-upstream.ts) plus the stored responses: kept before the
 * answer goes out when `store` is on (the default), continued by `previous_response_id`,
 * read and deleted by their owner only (GET and DELETE /v1/responses/{id}).
 */
import { parseJsonBody } from "../../http/body.js";
import { keepRouting, takeRouting } from "../../core/routing-fields.js";
import { dropNullFields, isObject } from "../../core/null-fields.js";
import { CHAT_UPSTREAM, estimate } from "../../pipeline/chat-upstream.js";
import type { Endpoint, EndpointServices, Job } from "../../pipeline/endpoint.js";
import { definesStages } from "../../pipeline/stages.js";
import { GatewayError, invalidRequest } from "../../core/errors.js";
import type { Route } from "../../catalog/catalog.js";
import type { ChatRequest } from "../../core/chat-request.js";
import type { KeyRecord } from "../../store/index.js";
import { checkedUsage } from "../../billing/usage-check.js";
import { checkItemCount, MAX_REQUEST_ITEMS, validate } from "../../core/validate.js";
import { finalStatus, outputItems, responseObject } from "./render.js";
import { contextOf, contextOfRequest, headOf, keepContext, save } from "./context.js";
import { isNative } from "./native.js";
import { renderNative, RESPONSES_NATIVE, type ResponsesAnswer } from "./native-stages.js";
import { LooseResponsesRequest, ResponsesRequest, type InputItem } from "./schema.js";
import { writeResponseStream } from "./stream.js";
import { refuseHosted } from "./tools.js";
import type { Exchange } from "../../http/exchange.js";
import { inResponsesTerms, inputItems, toChatRequest } from "./translate.js";

/** How much of a previous_response_id chain is replayed: beyond it the client sends the history itself. */
const MAX_CHAIN = { depth: 256, bytes: 32 * 1024 * 1024 };

const responseNotFound = (id: string, param: string | null, detail = "") =>
  new GatewayError(404, "not_found", "response_not_found", `No response '${id}' is stored for this account${detail}.`, { param });

/** POST /v1/responses; errors in chat terms (capabilities, adapters) are renamed to this API's fields. */
export const CREATE_RESPONSE: Endpoint<ChatRequest, ResponsesAnswer> = definesStages("responses", {
  ...CHAT_UPSTREAM,
  name: "responses",
  path: "/v1/responses",
  async parse(gw, raw, key) {
    const json = parseJsonBody(raw);
    dropNulls(json);
    const routing = takeRouting(json); // the gateway's own fields, under every compat mode (docs/routing.md)
    checkInputCount(json);
    const compat = gw.config.server.compat;
    const req = validate(compat === "passthrough" ? LooseResponsesRequest : ResponsesRequest, json) as ResponsesRequest;
    const history = req.previous_response_id ? await chainItems(gw, key.account, req.previous_response_id) : [];
    const input = inputItems(req);
    const { chat, tools } = toChatRequest(req, history, input);
    checkItemCount(chat); // the chain and the input together
    keepRouting(chat, routing);
    keepContext(chat, {
      req,
      account: key.account,
      history,
      input,
      createdAt: gw.now(),
      tools: tools.map,
      ignored: tools.ignored,
      strict: compat === "strict",
    });
    return chat;
  },
  route(found, req) {
    // `text.verbosity` is a hint: forwarded where the provider has it, else dropped (docs/responses.md).
    if (req.verbosity && !found.endpoints.some((e) => e.instance.plugin.features?.includes("verbosity"))) delete req.verbosity;
    // Translated, the reasoning of the turn that called the tools came back as no item, so it cannot
    // continue: a request returning tool results goes without `reasoning.effort` (docs/responses.md).
    if (!isNative(found) && req.reasoning_effort && req.messages.at(-1)?.role === "tool") delete req.reasoning_effort;
    const ctx = contextOfRequest(req);
    // A coding agent asks every model for its reasoning effort (Codex: `gpt-5.5` aliased to any
    // model); a model that cannot reason is served without it, named in X-Gateway-Ignored, as
    // /v1/messages drops `thinking` (docs/responses.md). Under `strict` it stays a 400.
    if (!isNative(found) && !ctx.strict && req.reasoning_effort && !canReason(found)) {
      delete req.reasoning_effort;
      ctx.ignored.push("reasoning.effort");
    }
    const route = CHAT_UPSTREAM.route(found, req);
    if (!isNative(route) && ctx.strict) refuseHosted(ctx.req.tools ?? []);
    return route;
  },
  async hold(gw, key, route, req, requestId) {
    const bill = await CHAT_UPSTREAM.hold(gw, key, route, req, requestId);
    // Natively the provider reads what the chat form leaves out (encrypted reasoning items, hosted
    // tools' results): its usage is billed as reported, not cut to the chat form's bound (docs/responses.md).
    if (isNative(route)) bill.bound = null;
    return bill;
  },
  async render(gw, ex, job, value, usage) {
    if (value.native) return renderNative(gw, ex, job, value.native, usage);
    const head = headOf(job);
    const finish = value.choices[0]?.finish_reason ?? undefined;
    const response = responseObject(head, {
      status: finalStatus(finish),
      output: outputItems(head, value, contextOf(job).tools),
      usage,
      finish,
      completedAt: Math.floor(gw.now() / 1000),
    });
    await save(gw, job, response);
    ex.json(200, JSON.stringify(response));
  },
  stream: (gw, ex, job, opened, delivered) =>
    writeResponseStream(ex, {
      head: headOf(job),
      tools: contextOf(job).tools,
      first: opened.first,
      rest: opened.rest,
      delivered,
      now: gw.now,
      estimate: (text) => estimate(job.body, text),
      checkUsage: (u) => checkedUsage(u, job.route.model, 1),
      finished: (response) => save(gw, job, response),
    }),
  native: RESPONSES_NATIVE,
  answerHead: noteIgnored,
  inOwnTerms: inResponsesTerms,
});

/** Hosted tools a translated route left out: on the answer's `X-Gateway-Ignored` and the request's log line (docs/responses.md). */
function canReason(route: Route): boolean {
  return route.model.capabilities?.reasoning !== false && route.endpoints.some((e) => e.instance.plugin.features?.includes("reasoning_effort"));
}

function noteIgnored(ex: Exchange, job: Job<ChatRequest>): void {
  const { ignored } = contextOf(job);
  if (!ignored.length || isNative(job.route)) return;
  const list = ignored.join(",");
  ex.state.headers["x-gateway-ignored"] = list;
  ex.state.rec.ignored = list;
}

/** The items of `id`'s conversation so far, oldest first; the whole chain or a clear error, never part of it. */
async function chainItems(gw: EndpointServices, account: string, id: string): Promise<InputItem[]> {
  const chain = await gw.store.responseChain(id, account, MAX_CHAIN);
  if (chain.length === 0) throw responseNotFound(id, "previous_response_id");
  const missing = chain[0]!.previousId;
  if (missing) {
    if (await gw.store.findResponse(missing, account)) {
      throw invalidRequest(
        `previous_response_id: the conversation is longer than the gateway replays (${MAX_CHAIN.depth} responses or ${MAX_CHAIN.bytes >> 20} MiB); send its history as input instead.`,
        "conversation_too_long",
        "previous_response_id",
      );
    }
    throw responseNotFound(missing, "previous_response_id", ` (an earlier response of the conversation '${id}' continues; it was deleted or expired)`);
  }
  return chain.flatMap((r) => r.items as InputItem[]);
}

/** GET /v1/responses/{id}: the response as it was answered. */
export async function getResponse(gw: EndpointServices, key: KeyRecord, id: string): Promise<Response> {
  const found = await gw.store.findResponse(id, key.account);
  if (!found) throw responseNotFound(id, null);
  return new Response(JSON.stringify(found.response), { headers: { "content-type": "application/json" } });
}

/** DELETE /v1/responses/{id}: OpenAI's answer shape (`{id, object: "response", deleted: true}`). */
export async function deleteResponse(gw: EndpointServices, key: KeyRecord, id: string): Promise<Response> {
  if (!(await gw.store.deleteResponse(id, key.account))) throw responseNotFound(id, null);
  return new Response(JSON.stringify({ id, object: "response", deleted: true }), { headers: { "content-type": "application/json" } });
}

/** Items and their content parts, counted before zod runs (the bound core/validate.ts puts on messages). */
function checkInputCount(json: unknown): void {
  const input = (json as { input?: unknown } | null)?.input;
  if (!Array.isArray(input)) return;
  let items = input.length;
  for (let i = 0; i < input.length && items <= MAX_REQUEST_ITEMS; i++) {
    const content = (input[i] as { content?: unknown; output?: unknown } | null)?.content;
    if (Array.isArray(content)) items += content.length;
  }
  if (items > MAX_REQUEST_ITEMS)
    throw invalidRequest(`input: A request may hold at most ${MAX_REQUEST_ITEMS} items and content parts together`, "request_too_large", "input");
}

/** An explicit null means absent, at the levels where OpenAI's clients send one; JSON Schemas are left alone. */
function dropNulls(body: unknown): void {
  if (!isObject(body)) return;
  dropNullFields(body);
  for (const k of ["text", "reasoning", "stream_options"]) if (isObject(body[k])) dropNullFields(body[k]);
  if (isObject(body.text) && isObject(body.text.format)) dropNullFields(body.text.format);
  for (const list of [body.tools, body.input]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (!isObject(item)) continue;
      dropNullFields(item);
      if (Array.isArray(item.content)) for (const p of item.content) if (isObject(p)) dropNullFields(p);
    }
  }
}

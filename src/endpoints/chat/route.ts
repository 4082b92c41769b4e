/**
 * POST /v1/chat/completions: the pipeline (pipeline/run.ts) with this endpoint's wire format:
 * the request schema of the config's `compat` mode, the completion object and the chunk stream.
 * Routing, hold and the adapter call are those of every chat-speaking endpoint (pipeline/chat-upstream.ts).
 */
import { checkedUsage } from "../../billing/usage-check.js";
import { LooseChatRequest, OpenAIChatRequest, StrictChatRequest, type ChatRequest, type Usage } from "../../core/chat-request.js";
import { keepRouting, routingOf, takeRouting } from "../../core/routing-fields.js";
import { nanoToUsd } from "../../core/money.js";
import { validate } from "../../core/validate.js";
import { parseJsonBody } from "../../http/body.js";
import { estimate, CHAT_UPSTREAM } from "../../pipeline/chat-upstream.js";
import type { Endpoint, EndpointServices, Job } from "../../pipeline/endpoint.js";
import { definesStages } from "../../pipeline/stages.js";
import type { Completion, StreamDelta } from "../../plugin/contract.js";
import { ChatAssembler, deltasOf } from "../../cache/chat-replay.js";
import { dropNulls } from "./null-fields.js";
import { renderCompletion } from "./render.js";
import { writeSse } from "./stream.js";

const SCHEMAS = { strict: StrictChatRequest, openai: OpenAIChatRequest, passthrough: LooseChatRequest };

const completionId = (job: Job) => `chatcmpl-${job.requestId.slice(4)}`;

/** The chat completions endpoint: the superset request, the completion and chunk forms. */
export const CHAT_COMPLETIONS: Endpoint<ChatRequest, Completion> = definesStages("chat", {
  ...CHAT_UPSTREAM,
  name: "chat",
  path: "/v1/chat/completions",
  /** Under `openai` an explicit null means absent (docs/openai-compat.md): dropped before validation. */
  parse(gw, raw) {
    const json = parseJsonBody(raw);
    if (gw.config.server.compat !== "strict") dropNulls(json);
    const routing = takeRouting(json); // the gateway's own fields, under every compat mode (docs/routing.md)
    return keepRouting(validate(SCHEMAS[gw.config.server.compat], json) as ChatRequest, routing);
  },
  render(gw, ex, job, value, usage) {
    const answer: { usage: Usage & { cost?: string } } = renderCompletion(value, usage, gw.config.server.compat !== "strict");
    if (routingOf(job.body).usage?.include) answer.usage.cost = nanoToUsd(job.bill.charged ?? 0); // docs/routing.md
    ex.json(
      200,
      JSON.stringify({ id: completionId(job), object: "chat.completion", created: Math.floor(gw.now() / 1000), model: job.route.model.id, ...answer }),
    );
  },
  async stream(gw, ex, job, opened, delivered) {
    const kept = job.keep && new ChatAssembler();
    kept?.add(opened.first);
    const result = await writeSse(ex, {
      ...chunkHead(gw, job),
      delivered,
      first: opened.first,
      rest: kept ? teed(opened.rest, kept) : opened.rest,
      estimate: (text) => estimate(job.body, text),
      checkUsage: (u) => checkedUsage(u, job.route.model, job.body.n ?? 1),
      ...(routingOf(job.body).usage?.include ? { cost: (u: Usage) => nanoToUsd(job.bill.chargeOf(opened.endpoint, u)) } : {}),
    });
    if (kept && result.outcome === "ok" && result.usage) job.keep?.(kept.completion(result.usage), result.usage);
    return result;
  },
  /** A cache hit asked as a stream: the kept completion replayed as chunks (docs/cache.md). */
  cache: {
    async replay(gw, ex, job, answer, usage) {
      const deltas = deltasOf(answer, usage)[Symbol.iterator]();
      const first = deltas.next();
      if (first.done) throw new Error("a kept answer without choices");
      ex.startSse();
      const rest: AsyncIterator<StreamDelta> = { next: () => Promise.resolve(deltas.next()) };
      const cost = routingOf(job.body).usage?.include ? { cost: () => "0" } : {}; // a hit is never charged
      await writeSse(ex, { ...chunkHead(gw, job), first: first.value, rest, estimate: () => Promise.resolve(usage), ...cost });
    },
  },
});

function chunkHead(gw: EndpointServices, job: Job<ChatRequest>) {
  const openai = gw.config.server.compat !== "strict";
  return { id: completionId(job), created: Math.floor(gw.now() / 1000), model: job.route.model.id, requestId: job.requestId, openai };
}

/** The upstream's deltas as they pass, also given to the assembler of the answer the cache keeps. */
function teed(rest: AsyncIterator<StreamDelta>, into: ChatAssembler): AsyncIterator<StreamDelta> {
  return {
    async next() {
      const r = await rest.next();
      if (!r.done) into.add(r.value);
      return r;
    },
    return: rest.return && ((v) => rest.return!(v)),
  };
}

/**
 * POST /v1/chat/completions: the pipeline (pipeline/run.ts) with this endpoint's wire format:
 * the request schema of the config's `compat` mode, the completion object and the chunk stream.
 */
import { checkedUsage } from "../../billing/usage-check.js";
import { LooseChatRequest, OpenAIChatRequest, StrictChatRequest, type ChatRequest } from "../../core/chat-request.js";
import { validate } from "../../core/validate.js";
import type { Gateway } from "../../gateway.js";
import { parseJsonBody } from "../../http/body.js";
import type { Exchange } from "../../http/exchange.js";
import type { Job, Renderer } from "../../pipeline/endpoint.js";
import { estimate, runPipeline } from "../../pipeline/run.js";
import { dropNulls } from "./null-fields.js";
import { renderCompletion } from "./render.js";
import { writeSse } from "./stream.js";

const SCHEMAS = { strict: StrictChatRequest, openai: OpenAIChatRequest, passthrough: LooseChatRequest };

/** POST /v1/chat/completions. */
export const chatCompletions = (gw: Gateway, ex: Exchange): Promise<void> => runPipeline(gw, ex, CHAT);

const completionId = (job: Job) => `chatcmpl-${job.requestId.slice(4)}`;

/** The chat completions renderer: the superset request, the completion and chunk forms. */
const CHAT: Renderer = {
  /** Under `openai` an explicit null means absent (contract.md §11): dropped before validation. */
  read(gw, raw) {
    const json = parseJsonBody(raw);
    if (gw.config.server.compat !== "strict") dropNulls(json);
    return validate(SCHEMAS[gw.config.server.compat], json) as ChatRequest;
  },
  answer(gw, ex, job, value, usage) {
    const answer = renderCompletion(value, usage, gw.config.server.compat !== "strict");
    ex.json(
      200,
      JSON.stringify({ id: completionId(job), object: "chat.completion", created: Math.floor(gw.now() / 1000), model: job.route.model.id, ...answer }),
    );
  },
  stream(gw, ex, job, opened, delivered) {
    return writeSse(ex, {
      delivered,
      id: completionId(job),
      created: Math.floor(gw.now() / 1000),
      model: job.route.model.id,
      requestId: job.requestId,
      first: opened.first,
      rest: opened.rest,
      estimate: (text) => estimate(job.body, text),
      checkUsage: (u) => checkedUsage(u, job.route.model, job.body.n ?? 1),
      openai: gw.config.server.compat !== "strict",
    });
  },
};

/**
 * The stages every endpoint that speaks chat upstream shares (chat completions, Responses):
 * routing narrowed by what the request needs, the worst-case hold of prompt and output, the
 * adapter's chat call, and usage measured or counted. Such an endpoint adds its parse and
 * render stages (endpoints/chat/route.ts, endpoints/responses/route.ts).
 */
import { openBill, outputBudget } from "../billing/bill.js";
import { countPromptTokens, countTextTokens, promptSize, roughTokens } from "../billing/tokens.js";
import { checkedUsage } from "../billing/usage-check.js";
import { needsOf, narrowRoute } from "../catalog/capabilities.js";
import type { RoutedEndpoint } from "../catalog/catalog.js";
import { modelMissing } from "../catalog/model-hint.js";
import type { ChatRequest, Usage } from "../core/chat-request.js";
import type { CallContext, Completion } from "../plugin/contract.js";
import { readJson } from "../upstream/body.js";
import type { AdapterServices, Endpoint, Job } from "./endpoint.js";
import { malformed } from "./failover.js";

type ChatStages = Pick<Endpoint<ChatRequest, Completion>, "route" | "hold" | "adapter" | "missing" | "usage" | "estimate">;

export const CHAT_UPSTREAM: ChatStages = {
  route: (found, req) => narrowRoute(found, needsOf(req)),
  missing: (gw, requested, byokKey, vendor) => modelMissing(gw.catalog, requested, byokKey, vendor),
  hold: (gw, key, route, req, requestId) => openBill(gw.store, key, route, req, requestId, gw.now()),
  async adapter(gw, job, e, signal) {
    const { plugin, ctx, res } = await sendChat(gw, job, e, signal);
    try {
      const answer = plugin.chat.response(await readJson(res.body, gw.config.server.upstream.maxResponseBytes), ctx);
      if (answer.usage) answer.usage = checkedUsage(answer.usage, job.route.model, job.body.n ?? 1);
      return answer;
    } catch (err) {
      throw malformed(err);
    }
  },
  usage: (_job, value) => value.usage,
  estimate: (job, value) => estimate(job.body, completionText(value)),
};

/** The adapter's chat request sent to one endpoint, JSON or streamed. */
export async function sendChat(gw: AdapterServices, job: Job<ChatRequest>, e: RoutedEndpoint, signal: AbortSignal) {
  const plugin = e.instance.plugin;
  const ctx: CallContext = {
    settings: e.instance.settings,
    apiKey: e.apiKey,
    model: e.model,
    stream: job.body.stream === true,
    maxOutput: outputBudget(job.body, job.route),
  };
  const res = await gw.upstream.send(await plugin.chat.request(job.body, ctx), plugin, signal);
  return { plugin, ctx, res };
}

function completionText(c: Completion): string {
  return c.choices.map((ch) => (ch.content ?? "") + (ch.tool_calls ?? []).map((t) => t.function.name + t.function.arguments).join("")).join("");
}

/** A request's prompt is counted once, however often the journal asks for an estimate. */
const promptCounts = new WeakMap<ChatRequest, Promise<number>>();

/** Usage counted here, for an answer or a cut stream the upstream reported none for. */
export async function estimate(body: ChatRequest, text: string): Promise<Usage> {
  let counting = promptCounts.get(body);
  if (!counting) promptCounts.set(body, (counting = countPromptTokens(body.messages)));
  const prompt = await counting;
  const completion = await countTextTokens(text);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** A request's prompt in rough tokens, once per request however often the journal asks. */
const roughPrompts = new WeakMap<ChatRequest, number>();

/**
 * Usage of a stream still running, for the in-flight journal every 2 s (billing/journal.ts):
 * characters over CHARS_PER_TOKEN, no tokenizer (docs/billing.md). With 10,000 open streams
 * o200k over each delivered text every 2 s cost more CPU than relaying them, and its tables
 * ~30 MB of heap. The row of a stream that ends, however it ends, is `estimate`'s.
 */
export function inflightUsage(body: ChatRequest, deliveredChars: number): Usage {
  let prompt = roughPrompts.get(body);
  if (prompt === undefined) {
    const size = promptSize(body.messages);
    roughPrompts.set(body, (prompt = 3 + 3 * body.messages.length + roughTokens(size.chars) + size.imageTokens));
  }
  const completion = roughTokens(deliveredChars);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

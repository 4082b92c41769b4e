/**
 * The answer as OpenAI's `Response` object (openai/openai-openapi `Response`, `OutputMessage`,
 * `OutputTextContent`, `FunctionToolCall`, `ResponseUsage`): what the request asked echoed
 * back, the output items with stable ids, the status and the usage. One renderer for the
 * JSON answer, every stream event that carries a response, GET /v1/responses/{id} and the
 * stored copy.
 */
import type { Completion } from "../../plugin/contract.js";
import type { FinishReason, Usage } from "../../core/chat-request.js";
import type { ResponsesRequest } from "./schema.js";
import { customInput, type ToolMap } from "./tools.js";

type ItemStatus = "in_progress" | "completed" | "incomplete";

interface OutputText {
  type: "output_text";
  text: string;
  annotations: never[];
  logprobs: unknown[];
}
interface OutputRefusal {
  type: "refusal";
  refusal: string;
}
export interface MessageOut {
  type: "message";
  id: string;
  role: "assistant";
  status: ItemStatus;
  content: Array<OutputText | OutputRefusal>;
}
interface FunctionCallOut {
  type: "function_call";
  id: string;
  call_id: string;
  name: string;
  /** Set for a function of a namespace tool: the call names it as the client declared it. */
  namespace?: string;
  arguments: string;
  status: ItemStatus;
}
/** A call of a custom (free-form) tool: its input as the model wrote it. */
interface CustomCallOut {
  type: "custom_tool_call";
  id: string;
  call_id: string;
  name: string;
  input: string;
  status: ItemStatus;
}
export type CallOut = FunctionCallOut | CustomCallOut;
export type OutputItem = MessageOut | CallOut;

export type Status = "in_progress" | "completed" | "incomplete" | "failed";

/** What one answer is: the request it echoes and where it stands. */
export interface ResponseHead {
  id: string;
  createdAt: number;
  model: string;
  req: ResponsesRequest;
  store: boolean;
}

/** Item ids from the response's own: unique across responses, stable within one stream. */
export const itemId = (head: ResponseHead, prefix: "msg" | "fc" | "ctc", n: number) => `${prefix}_${head.id.slice(5)}${n.toString(16).padStart(2, "0")}`;

/** The tools' arguments as JSON: a call without parameters may come as "", which clients cannot JSON.parse. */
export const argumentsOf = (args: string) => (args === "" ? "{}" : args);

function incompleteReason(finish: FinishReason | undefined): "max_output_tokens" | "content_filter" | null {
  return finish === "length" ? "max_output_tokens" : finish === "content_filter" ? "content_filter" : null;
}

/** A call the model made of chat tool `name`, as the item of the tool the client declared (endpoints/responses/tools.ts). */
export function callItem(head: ResponseHead, tools: ToolMap, n: number, call: { id: string; name: string; arguments: string }, status: ItemStatus): CallOut {
  const origin = tools.get(call.name);
  if (origin?.kind === "custom")
    return { type: "custom_tool_call", id: itemId(head, "ctc", n), call_id: call.id, name: origin.name, input: customInput(call.arguments), status };
  const item: FunctionCallOut = {
    type: "function_call",
    id: itemId(head, "fc", n),
    call_id: call.id,
    name: origin?.name ?? call.name,
    arguments: argumentsOf(call.arguments),
    status,
  };
  if (origin?.namespace) item.namespace = origin.namespace;
  return item;
}

/** The completion's first choice (a Responses request has no `n`) as output items. */
export function outputItems(head: ResponseHead, c: Completion, tools: ToolMap): OutputItem[] {
  const choice = c.choices[0];
  if (!choice) return [];
  const status: ItemStatus = incompleteReason(choice.finish_reason) ? "incomplete" : "completed";
  const out: OutputItem[] = [];
  const content: MessageOut["content"] = [];
  if (choice.content) content.push({ type: "output_text", text: choice.content, annotations: [], logprobs: logprobsOf(choice.logprobs) });
  if (choice.refusal) content.push({ type: "refusal", refusal: choice.refusal });
  if (content.length) out.push({ type: "message", id: itemId(head, "msg", 0), role: "assistant", status, content });
  for (const t of choice.tool_calls ?? []) out.push(callItem(head, tools, out.length, { id: t.id, ...t.function }, "completed"));
  return out;
}

/** Chat logprobs (`{content: [{token, logprob, bytes, top_logprobs}]}`) are the Responses form item by item. */
export function logprobsOf(lp: unknown): unknown[] {
  const content = (lp as { content?: unknown } | null | undefined)?.content;
  return Array.isArray(content) ? content : [];
}

/** Usage with the OpenAI-convention details where the provider reported them (docs/billing.md). */
type Detailed = Usage & { prompt_tokens_details?: { cached_tokens?: number }; completion_tokens_details?: { reasoning_tokens?: number } };

/** The usage as a Response states it, from what was billed (both paths: native.ts too). */
export function responseUsage(u: Detailed) {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.prompt_tokens_details?.cached_tokens ?? 0 },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: u.total_tokens,
  };
}

export interface Outcome {
  status: Status;
  output: OutputItem[];
  usage: Usage | null;
  finish?: FinishReason;
  /** Set with status `failed` (OAPI `ResponseError`). */
  error?: { code: "server_error"; message: string };
  completedAt?: number;
}

export function responseObject(head: ResponseHead, o: Outcome) {
  const { req } = head;
  const reason = o.status === "incomplete" ? incompleteReason(o.finish) : null;
  return {
    id: head.id,
    object: "response",
    created_at: head.createdAt,
    completed_at: o.completedAt ?? null,
    status: o.status,
    model: head.model,
    output: o.output,
    error: o.error ?? null,
    incomplete_details: reason ? { reason } : null,
    instructions: req.instructions ?? null,
    metadata: req.metadata ?? {},
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    temperature: req.temperature ?? null,
    top_p: req.top_p ?? null,
    tool_choice: req.tool_choice ?? "auto",
    tools: req.tools ?? [],
    text: { format: req.text?.format ?? { type: "text" } },
    reasoning: { effort: req.reasoning?.effort ?? null, summary: req.reasoning?.summary ?? null },
    max_output_tokens: req.max_output_tokens ?? null,
    previous_response_id: req.previous_response_id ?? null,
    store: head.store,
    truncation: req.truncation ?? "disabled",
    usage: o.usage ? responseUsage(o.usage) : null,
    ...(req.user !== undefined && { user: req.user }),
  };
}

export type ResponseJson = ReturnType<typeof responseObject>;

/** Where a finished answer stands: incomplete when cut by the output limit or a safety stop. */
export const finalStatus = (finish: FinishReason | undefined): Status => (incompleteReason(finish) ? "incomplete" : "completed");

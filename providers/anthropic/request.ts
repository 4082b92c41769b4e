/** A ChatRequest (the OpenAI superset) as a Messages API body (POST /v1/messages, https://docs.anthropic.com/en/api/messages). */
import { type CallContext, type ChatRequest, requestedMaxTokens, unsupported } from "../../src/plugin/contract.js";
import { rememberJsonTool } from "./call-state.js";
import { jsonOutputOf } from "./json-output.js";
import { defaultMaxTokens } from "./max-tokens.js";
import { toConversation, type Conversation } from "./messages.js";
import { assertThinkingFits, samplingOf, thinkingOf } from "./thinking.js";
import { declaredTool, historyTool, toolChoiceOf, type AnthropicToolChoice } from "./tools.js";

/** Anthropic's `metadata.user_id` is limited to 256 characters (Messages API reference). */
const USER_ID_MAX = 256;

export function toMessagesBody(req: ChatRequest, ctx: CallContext): Record<string, unknown> {
  rejectUnsupported(req);
  const conversation = toConversation(req.messages);
  const maxTokens = requestedMaxTokens(req) ?? defaultMaxTokens(ctx);
  const body: Record<string, unknown> = { model: ctx.model, max_tokens: maxTokens, messages: conversation.messages };
  if (conversation.system !== undefined) body.system = conversation.system;
  const { tools, choice } = toolsOf(req, conversation, ctx);
  if (tools.length > 0) body.tools = tools;
  if (choice) body.tool_choice = choice;
  const thinking = thinkingOf(req, maxTokens);
  if (thinking) {
    assertThinkingFits(req, choice, conversation.messages);
    body.thinking = thinking;
  }
  Object.assign(body, samplingOf(req, thinking));
  if (req.stop !== undefined) body.stop_sequences = [req.stop].flat();
  const userId = req.safety_identifier ?? req.user;
  // An abuse-detection id like OpenAI's `user` / `safety_identifier`; one too long for the field is not sent.
  if (userId && userId.length <= USER_ID_MAX) body.metadata = { user_id: userId };
  // Streams always carry usage (message_start, message_delta): nothing to ask for.
  if (ctx.stream) body.stream = true;
  return body;
}

/** Declared tools, the JSON-output tool, then history tools the request leaves undeclared. */
function toolsOf(req: ChatRequest, conversation: Conversation, ctx: CallContext) {
  const tools = (req.tools ?? []).map(declaredTool);
  const taken = new Set([...tools.map((t) => t.name), ...conversation.historyTools]);
  const json = jsonOutputOf(req, taken);
  let choice: AnthropicToolChoice | undefined = toolChoiceOf(req);
  if (json) {
    tools.push(json.tool);
    choice = json.choice;
    rememberJsonTool(ctx, json.tool.name);
  }
  const declared = new Set(tools.map((t) => t.name));
  for (const name of conversation.historyTools) if (!declared.has(name)) tools.push(historyTool(name));
  return { tools, choice };
}

/**
 * Parameters Anthropic cannot honour are a 400, never dropped. `seed` is the exception:
 * it is best-effort by definition, and Anthropic has no seed, so it is ignored.
 */
function rejectUnsupported(req: ChatRequest): void {
  if ((req.n ?? 1) > 1) throw unsupported("n", "Anthropic returns one choice per request; send n: 1 or leave it out.");
  for (const field of ["frequency_penalty", "presence_penalty"] as const) {
    if (req[field]) throw unsupported(field, "Anthropic has no such penalty; send 0 or leave it out.");
  }
}

/**
 * Upstreams for the coding agents to work against, one per wire format the gateway speaks to a
 * provider: Anthropic's Messages, OpenAI's chat completions and Responses, Google's
 * generateContent. Each lists the models it is given (GET of its model list, for `models sync`),
 * and scripts the same tool round trip whatever the agent: turn 1 calls the agent's own shell
 * tool (`Bash`, `bash`, `exec_command`, `run_shell_command`) to echo a mark, turn 2 (its output
 * came back) answers the final text. Other requests an agent makes (titles, Gemini CLI's routing
 * classifier, which asks for JSON of a schema) get a short answer. Every answer reports fixed
 * usage, so a test can check the ledger charged exactly that at the model's price.
 */
import type { Recorded, Reply, SseEvent } from "../helpers/fake-upstream.js";
import { messageItem, responsesStream } from "../helpers/responses-wire.js";
import { candidate, response, sse } from "../providers/google.fixture.js";
import { message, messageEnd, messageStart, textBlock, textBlockEvents, toolBlockEvents, toolUseBlock } from "../providers/anthropic.fixture.js";

export const MARK = "agent-readme-mark-5150";
export const FINAL = "Done: the command printed the mark.";

/** The usage every answer reports: 1,000 prompt and 40 completion tokens. */
export const USAGE = { prompt: 1000, completion: 40 };

const SHELL = ["Bash", "bash", "exec_command", "run_shell_command"];

/** The shell tool's arguments each agent's tool takes. */
const shellArgs = (name: string) => (name === "exec_command" ? { cmd: `echo ${MARK}` } : { command: `echo ${MARK}`, description: "Print the mark" });

/** Has the mark come back as a tool's output? (Only a tool result carries it: the prompt names no mark.) */
const answered = (r: Recorded) => JSON.stringify(r.body ?? {}).includes(MARK);

const names = (tools: unknown): string[] =>
  Array.isArray(tools)
    ? tools.flatMap((t: any) => [
        t.name,
        t.function?.name,
        ...(t.functionDeclarations ?? []).map((f: any) => f.name),
        ...(t.tools ?? []).map((f: any) => f.name),
      ])
    : [];
const shellOf = (r: Recorded): string | undefined => names(r.body?.tools).find((n) => SHELL.includes(n));

/**
 * A JSON value for each property of a schema (types as Gemini writes them, any case). Gemini
 * CLI's routing classifier asks for a complexity score from 1 to 100 (or, in its older form, a
 * choice of flash or pro): a high score, or the last choice, sends the turn to its Pro model,
 * `gemini-3.1-pro-preview`.
 */
export function fill(schema: any): any {
  const type = String(schema?.type ?? "object").toLowerCase();
  if (type === "object") return Object.fromEntries(Object.entries(schema?.properties ?? {}).map(([k, v]) => [k, fill(v)]));
  if (type === "integer" || type === "number") return 90;
  if (type === "boolean") return false;
  if (type === "array") return [];
  return schema?.enum?.at(-1) ?? "simple";
}

/** Anthropic's Messages API, and its model list. */
export function anthropicFake(models: string[]) {
  return (r: Recorded): Reply => {
    if (r.method === "GET") {
      const data = models.map((id) => ({ type: "model", id, display_name: id, created_at: "2026-01-01T00:00:00Z", max_input_tokens: null, max_tokens: null }));
      return { json: { data, has_more: false, first_id: models[0], last_id: models.at(-1) } };
    }
    const shell = shellOf(r);
    const call =
      shell && !answered(r)
        ? { id: `toolu_01${Math.random().toString(36).slice(2, 12)}`, name: shell, arguments: JSON.stringify(shellArgs(shell)) }
        : undefined;
    const text = answered(r) ? FINAL : "Mark printer";
    const usage = { input_tokens: USAGE.prompt, output_tokens: USAGE.completion };
    if (!r.body?.stream) return message([call ? toolUseBlock(call) : textBlock(text)], usage, call ? "tool_use" : "end_turn");
    const blocks: SseEvent[] = call ? toolBlockEvents(0, call) : textBlockEvents(0, [text]);
    return {
      sse: [messageStart({ input_tokens: USAGE.prompt }), ...blocks, ...messageEnd(call ? "tool_use" : "end_turn", { output_tokens: USAGE.completion })],
    };
  };
}

/** OpenAI's chat completions and Responses API, and its model list. */
export function openaiFake(models: string[]) {
  return (r: Recorded): Reply => {
    if (r.method === "GET") return { json: { object: "list", data: models.map((id) => ({ id, object: "model", created: 1, owned_by: "system" })) } };
    const shell = shellOf(r);
    const call = shell && !answered(r) ? shell : undefined;
    if (r.path.endsWith("/responses")) {
      const usage = { input_tokens: USAGE.prompt, output_tokens: USAGE.completion };
      if (!call) return responsesStream([messageItem(answered(r) ? FINAL : "Mark printer")], usage);
      return responsesStream(
        [{ id: "fc_1", type: "function_call", status: "completed", call_id: "call_sh_1", name: call, arguments: JSON.stringify(shellArgs(call)) }],
        usage,
      );
    }
    const usage = { prompt_tokens: USAGE.prompt, completion_tokens: USAGE.completion, total_tokens: USAGE.prompt + USAGE.completion };
    const base = { id: "chatcmpl-agent", created: 1, model: "upstream" };
    const toolCall = call && { id: "call_sh_1", type: "function", function: { name: call, arguments: JSON.stringify(shellArgs(call)) } };
    const text = call ? null : answered(r) ? FINAL : JSON.stringify(fill(r.body?.response_format?.json_schema?.schema ?? { type: "string" }));
    if (!r.body?.stream) {
      const msg = { role: "assistant", content: text, ...(toolCall && { tool_calls: [toolCall] }) };
      return { json: { ...base, object: "chat.completion", choices: [{ index: 0, message: msg, finish_reason: call ? "tool_calls" : "stop" }], usage } };
    }
    const chunk = (choices: unknown[], u: unknown = null) => ({ data: { ...base, object: "chat.completion.chunk", choices, usage: u } });
    const delta = { role: "assistant", content: text, ...(toolCall && { tool_calls: [{ index: 0, ...toolCall }] }) };
    return {
      sse: [chunk([{ index: 0, delta, finish_reason: null }]), chunk([{ index: 0, delta: {}, finish_reason: call ? "tool_calls" : "stop" }]), chunk([], usage)],
    };
  };
}

/** Google's generateContent (JSON and SSE), and its model list. */
export function googleFake(models: string[]) {
  return (r: Recorded): Reply => {
    if (r.method === "GET") return { json: { models: models.map((id) => ({ name: `models/${id}`, supportedGenerationMethods: ["generateContent"] })) } };
    const usage = { promptTokenCount: USAGE.prompt, candidatesTokenCount: USAGE.completion };
    const schema = r.body?.generationConfig?.responseJsonSchema ?? r.body?.generationConfig?.responseSchema;
    const shell = shellOf(r);
    const part =
      shell && !answered(r)
        ? { functionCall: { name: shell, args: shellArgs(shell) } }
        : { text: answered(r) ? FINAL : schema ? JSON.stringify(fill(schema)) : "Mark printer" };
    const answer = response([candidate([part], "STOP")], usage);
    return r.path.includes(":streamGenerateContent") ? sse([answer]) : { json: answer };
  };
}

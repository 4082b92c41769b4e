/**
 * One fake model upstream for the MCP agent tests (docs/mcp.md), speaking each wire format the
 * four agents reach it through the gateway with: Anthropic's Messages, OpenAI's chat completions
 * and Responses, Google's generateContent. Whatever the format, it scripts one call of the
 * gateway tool `fs__echo` as the agent names it, as a model would: the offered tool whose name
 * ends in `fs__echo`, after a tool search where the agent lists MCP tools only through one
 * (Claude Code's ToolSearch over its deferred names, Codex's client-side `tool_search`), or, when
 * none is offered (a key without a grant), the call the test forces. Its argument is a
 * mark the prompt never names, so the mark in a tool result can only have come from the tool.
 * Once a tool result is in the conversation it answers the final text; requests without tools
 * (titles, Gemini CLI's routing classifier) get a short text or JSON of the schema asked for.
 */
import type { Recorded, Reply, SseEvent } from "../helpers/fake-upstream.js";
import { messageItem, responsesStream } from "../helpers/responses-wire.js";
import { candidate, response, sse } from "../providers/google.fixture.js";
import { message, messageEnd, messageStart, textBlock, textBlockEvents, toolBlockEvents, toolUseBlock } from "../providers/anthropic.fixture.js";
import { fill } from "./agent-fakes.js";

export const ECHO_MARK = "mcp-echo-mark-61d9";
export const FINAL = "Done: the gateway's echo tool answered.";
export const ECHO_ARGS = { text: ECHO_MARK };
const USAGE = { prompt: 1000, completion: 40 };

interface Tool {
  /** The name the agent calls it by: its own, or its namespace's and its own (Responses namespaces). */
  name: string;
  namespace?: string;
  own: string;
}

const toolsOf = (list: any[]): Tool[] =>
  list.flatMap((t): Tool[] => [
    ...[t.name, t.function?.name].filter((n) => typeof n === "string" && t.type !== "namespace").map((n: string) => ({ name: n, own: n })),
    ...(t.functionDeclarations ?? []).map((f: any) => ({ name: f.name, own: f.name })),
    ...(t.type === "namespace" ? (t.tools ?? []) : []).map((f: any) => ({
      name: t.name.endsWith("_") ? `${t.name}${f.name}` : `${t.name}__${f.name}`,
      namespace: t.name,
      own: f.name,
    })),
  ]);

/** Codex's answers to a client-side `tool_search` (Responses input items carrying the tools it loaded). */
const searchOutputs = (body: any): any[] => (Array.isArray(body?.input) ? body.input.filter((i: any) => i.type === "tool_search_output") : []);

/** The tools a request defines for the model, in any of the four formats, with those a tool search loaded. */
function defined(body: any): Tool[] {
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  return toolsOf([...tools, ...searchOutputs(body).flatMap((o) => o.tools ?? [])]);
}

/** Tools Claude Code names in a system reminder, to be loaded with its ToolSearch before a call (its MCP tools among them). */
function deferred(body: any): string[] {
  const m = /to load tool schemas before calling them:\n((?:[^\n]+\n)+)\n/.exec(JSON.stringify(body?.messages ?? []).replaceAll("\\n", "\n"));
  return m ? m[1]!.trim().split("\n") : [];
}

/** Every tool a request tells the model it has: defined, loaded by a search, or deferred. */
export const offered = (body: any): string[] => [...defined(body).map((t) => t.name), ...deferred(body)];

/** The tool results a request carries back to the model. */
function results(body: any): any[] {
  const found: any[] = [];
  for (const m of body?.messages ?? []) {
    if (m.role === "tool") found.push(m);
    if (Array.isArray(m.content)) found.push(...m.content.filter((b: any) => b.type === "tool_result"));
  }
  if (Array.isArray(body?.input)) found.push(...body.input.filter((i: any) => /_call_output$/.test(String(i.type))));
  for (const c of body?.contents ?? []) found.push(...(c.parts ?? []).filter((p: any) => p.functionResponse));
  return found;
}

/** The tool results a request carries back to the model, as JSON text ("" when none). */
export const toolResults = (body: any): string => (results(body).length ? JSON.stringify(results(body)) : "");

/** Every call of the echo carries this in its id (Google's function responses carry the name instead). */
const ECHO_ID = "echo7c1";
const echoAnswered = (body: any) => results(body).some((r) => JSON.stringify(r).includes(ECHO_ID) || r.functionResponse?.name?.endsWith("fs__echo"));

/** The call the fake makes when the agent offers no echo: its name (and Responses namespace) as the agent would call it. */
export interface Forced {
  name: string;
  namespace?: string;
}

export interface Call {
  id: string;
  name: string;
  namespace?: string;
  args: Record<string, unknown>;
  /** Codex's client-side tool search (a `tool_search_call` item) rather than a function call. */
  search?: boolean;
}

const rand = () => Math.random().toString(36).slice(2, 10);

/**
 * The call for this request, if any, as a model would: the echo when it is defined; else a tool
 * search first when the agent has one (Claude Code's ToolSearch for a deferred echo, Codex's
 * `tool_search`); else the forced name, once.
 */
function next(body: any, forced: Forced): Call | undefined {
  if (echoAnswered(body)) return undefined;
  const tools = defined(body);
  const id = `${ECHO_ID}${rand()}`;
  const echo = tools.find((t) => t.name.endsWith("fs__echo"));
  if (echo) return { id, name: echo.own, ...(echo.namespace && { namespace: echo.namespace }), args: ECHO_ARGS };
  const searched = results(body).length > 0 || searchOutputs(body).length > 0;
  const later = deferred(body).find((n) => n.endsWith("fs__echo"));
  if (later && tools.some((t) => t.name === "ToolSearch") && !searched)
    return { id: `search${rand()}`, name: "ToolSearch", args: { query: `select:${later}` } };
  if (body?.tools?.some?.((t: any) => t.type === "tool_search") && !searched) {
    return { id: `search${rand()}`, name: "tool_search", args: { query: "echo", limit: 8 }, search: true };
  }
  if (later) return { id, name: later, args: ECHO_ARGS };
  return tools.length > 0 && forced.name ? { id, ...forced, args: ECHO_ARGS } : undefined;
}

const argsOf = (c: Call) => JSON.stringify(c.args);

function anthropic(r: Recorded, call: Call | undefined): Reply {
  const use = call && { id: `toolu_01${call.id}`, name: call.name, arguments: argsOf(call) };
  const text = toolResults(r.body) ? FINAL : "Echo test";
  const usage = { input_tokens: USAGE.prompt, output_tokens: USAGE.completion };
  const stop = use ? "tool_use" : "end_turn";
  if (!r.body?.stream) return message([use ? toolUseBlock(use) : textBlock(text)], usage, stop);
  const blocks: SseEvent[] = use ? toolBlockEvents(0, use) : textBlockEvents(0, [text]);
  return { sse: [messageStart({ input_tokens: USAGE.prompt }), ...blocks, ...messageEnd(stop, { output_tokens: USAGE.completion })] };
}

function responses(r: Recorded, call: Call | undefined): Reply {
  const usage = { input_tokens: USAGE.prompt, output_tokens: USAGE.completion };
  if (!call) return responsesStream([messageItem(toolResults(r.body) ? FINAL : "Echo test")], usage);
  const item = call.search
    ? { id: "tsc_1", type: "tool_search_call", status: "completed", call_id: `call_${call.id}`, execution: "client", arguments: call.args }
    : {
        id: "fc_1",
        type: "function_call",
        status: "completed",
        call_id: `call_${call.id}`,
        name: call.name,
        ...(call.namespace && { namespace: call.namespace }),
        arguments: argsOf(call),
      };
  return responsesStream([item], usage);
}

function chat(r: Recorded, call: Call | undefined): Reply {
  const usage = { prompt_tokens: USAGE.prompt, completion_tokens: USAGE.completion, total_tokens: USAGE.prompt + USAGE.completion };
  const base = { id: "chatcmpl-mcp", created: 1, model: "upstream" };
  const fn = call && { id: `call_${call.id}`, type: "function", function: { name: call.name, arguments: argsOf(call) } };
  const text = fn ? null : toolResults(r.body) ? FINAL : JSON.stringify(fill(r.body?.response_format?.json_schema?.schema ?? { type: "string" }));
  const finish = fn ? "tool_calls" : "stop";
  if (!r.body?.stream) {
    const msg = { role: "assistant", content: text, ...(fn && { tool_calls: [fn] }) };
    return { json: { ...base, object: "chat.completion", choices: [{ index: 0, message: msg, finish_reason: finish }], usage } };
  }
  const chunk = (choices: unknown[], u: unknown = null) => ({ data: { ...base, object: "chat.completion.chunk", choices, usage: u } });
  const delta = { role: "assistant", content: text, ...(fn && { tool_calls: [{ index: 0, ...fn }] }) };
  return { sse: [chunk([{ index: 0, delta, finish_reason: null }]), chunk([{ index: 0, delta: {}, finish_reason: finish }]), chunk([], usage)] };
}

function google(r: Recorded, call: Call | undefined): Reply {
  const usage = { promptTokenCount: USAGE.prompt, candidatesTokenCount: USAGE.completion };
  const schema = r.body?.generationConfig?.responseJsonSchema ?? r.body?.generationConfig?.responseSchema;
  const part = call
    ? { functionCall: { name: call.name, args: call.args } }
    : { text: toolResults(r.body) ? FINAL : schema ? JSON.stringify(fill(schema)) : "Echo test" };
  const answer = response([candidate([part], "STOP")], usage);
  return r.path.includes(":streamGenerateContent") ? sse([answer]) : { json: answer };
}

/** The fake's script; `forced` is the call it makes when the agent offers no echo (set per test). */
export function mcpModelFake(forced: Forced) {
  return (r: Recorded): Reply => {
    const tool = next(r.body, forced);
    if (r.path.startsWith("/v1/messages")) return anthropic(r, tool);
    if (r.path.startsWith("/v1/responses")) return responses(r, tool);
    if (r.path.startsWith("/v1/chat/completions")) return chat(r, tool);
    if (r.path.startsWith("/v1beta/")) return google(r, tool);
    return { status: 404, json: { error: { message: `the fake serves no ${r.path}` } } };
  };
}

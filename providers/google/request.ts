/**
 * ChatRequest -> Gemini GenerateContentRequest (https://ai.google.dev/api/generate-content).
 * Roles become user/model turns; tool history becomes functionCall / functionResponse parts
 * paired by name (and id); consecutive same-role turns are merged, as Gemini requires.
 */
import { isInstruction, textOf } from "../../src/content.js";
import { unsupported } from "../../src/provider.js";
import type { ChatMessage, ChatRequest } from "../../src/schema.js";

export interface Part {
  text?: string;
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
  thoughtSignature?: string;
}
export interface Content { role: "user" | "model"; parts: Part[] }

/** Gemini documents candidateCount 1..8. */
const MAX_CANDIDATES = 8;
/**
 * Google's documented sentinel for function calls the model did not produce in this session
 * (https://ai.google.dev/gemini-api/docs/thought-signatures): OpenAI-format history cannot
 * carry the real signature, and Gemini 3+ answers 400 without one.
 */
const FOREIGN_SIGNATURE = "skip_thought_signature_validator";
/** Generations before thought-signature validation: they get no sentinel. */
const UNSIGNED_GENERATION = /^(models\/)?gemini-[12][.-]/;
/** Only these generations accept penalties; 2.5 and 3.x answer "Penalty is not enabled". */
const PENALTY_GENERATION = /^(models\/)?gemini-(1\.|2\.0)/;

export function toGeminiBody(req: ChatRequest, model: string): Record<string, unknown> {
  const system = req.messages.filter(isInstruction).map((m) => ({ text: textOf(m.content) })).filter((p) => p.text);
  const contents = toContents(req.messages, !UNSIGNED_GENERATION.test(model));
  const body: Record<string, unknown> = { contents };
  if (system.length) body.systemInstruction = { parts: system };
  const tools = declaredTools(req.messages);
  if (tools.length) body.tools = [{ functionDeclarations: tools }];
  const config = generationConfig(req, model);
  if (Object.keys(config).length) body.generationConfig = config;
  return body;
}

function generationConfig(req: ChatRequest, model: string): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (req.temperature !== undefined) config.temperature = Math.min(Math.max(req.temperature, 0), 2);
  if (req.top_p !== undefined) config.topP = Math.min(Math.max(req.top_p, 0), 1);
  if (req.max_tokens !== undefined) config.maxOutputTokens = req.max_tokens;
  const stop = req.stop === undefined ? [] : [req.stop].flat();
  if (stop.length) config.stopSequences = stop;
  if (req.n !== undefined && req.n > MAX_CANDIDATES) throw unsupported("n", `Gemini returns at most ${MAX_CANDIDATES} candidates`);
  if (req.n !== undefined && req.n > 1) config.candidateCount = req.n;
  if (req.seed !== undefined) config.seed = req.seed;
  // A zero penalty is a no-op: leave it out rather than trip models that reject the field.
  for (const [field, key] of [["presence_penalty", "presencePenalty"], ["frequency_penalty", "frequencyPenalty"]] as const) {
    const value = req[field];
    if (value === undefined || value === 0) continue;
    if (!PENALTY_GENERATION.test(model)) throw unsupported(field, `not supported by the Gemini model '${model}'`);
    config[key] = value;
  }
  return config;
}

function toContents(messages: ChatMessage[], sign: boolean): Content[] {
  const contents: Content[] = [];
  const names = new Map<string, string>(); // tool_call_id -> function name, from earlier assistant turns
  messages.forEach((m, i) => {
    const turn = toTurn(m, i, names, sign);
    if (!turn || !turn.parts.length) return;
    const last = contents.at(-1);
    if (last?.role === turn.role) last.parts.push(...turn.parts);
    else contents.push(turn);
  });
  return contents;
}

function toTurn(m: ChatMessage, i: number, names: Map<string, string>, sign: boolean): Content | null {
  if (isInstruction(m)) return null;
  const text = textOf(m.content);
  if (m.role === "user") return { role: "user", parts: text ? [{ text }] : [] };
  if (m.role === "tool") return { role: "user", parts: [functionResponse(m, i, names)] };
  const parts: Part[] = text ? [{ text }] : [];
  for (const call of m.tool_calls ?? []) {
    names.set(call.id, call.function.name);
    const part: Part = { functionCall: { id: call.id, name: call.function.name, args: argsOf(call.function.arguments, i) } };
    if (sign) part.thoughtSignature = FOREIGN_SIGNATURE;
    parts.push(part);
  }
  return { role: "model", parts };
}

function functionResponse(m: ChatMessage, i: number, names: Map<string, string>): Part {
  const id = m.tool_call_id as string; // the core rejects tool messages without one
  const name = names.get(id) ?? m.name;
  if (!name) throw unsupported(`messages[${i}].tool_call_id`, "matches no earlier assistant tool call; Gemini needs the function name");
  return { functionResponse: { id, name, response: responseOf(textOf(m.content)) } };
}

/** Gemini wants an object: JSON objects pass as they are, anything else is wrapped. */
function responseOf(text: string): Record<string, unknown> {
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch { /* plain text stays a string */ }
  return isObject(value) ? value : { content: value };
}

function argsOf(json: string, i: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = json.trim() === "" ? {} : JSON.parse(json);
  } catch {
    throw unsupported(`messages[${i}].tool_calls.function.arguments`, "must be a JSON object for Gemini");
  }
  if (!isObject(value)) throw unsupported(`messages[${i}].tool_calls.function.arguments`, "must be a JSON object for Gemini");
  return value;
}

/** Functions named in the history, declared with a permissive schema so Gemini accepts their turns. */
function declaredTools(messages: ChatMessage[]): Array<Record<string, unknown>> {
  const names = new Set(messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.name)));
  // parametersJsonSchema, not parameters: an OBJECT `parameters` without properties is a 400.
  return [...names].map((name) => ({ name, parametersJsonSchema: { type: "object" } }));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Chat messages -> Gemini `contents` and `systemInstruction`
 * (https://ai.google.dev/api/generate-content#request-body, Content and Part in
 * https://ai.google.dev/api/caching#Content). Roles become user/model turns; tool history
 * becomes functionCall / functionResponse parts paired by id and name; consecutive same-role
 * turns are merged, so every function response of one model turn lands in ONE user content,
 * as Gemini requires ("the number of function response parts is equal to the number of
 * function call parts"; openai-surface.md A5).
 */
import { type ChatMessage, inlineImage, isInstruction, partsOf, textOf, unsupported } from "../../src/plugin/contract.js";

export interface Part {
  text?: string;
  inlineData?: { mimeType: string; data: string };
  functionCall?: { id?: string; name: string; args: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
  thoughtSignature?: string;
}
export interface Content {
  role: "user" | "model";
  parts: Part[];
}

/**
 * Google's documented sentinel for function calls the model did not produce in this session
 * (https://ai.google.dev/gemini-api/docs/thought-signatures): OpenAI-format history cannot
 * carry the real signature, and Gemini 3+ answers 400 without one.
 */
const FOREIGN_SIGNATURE = "skip_thought_signature_validator";

/** `system` and `developer` messages, in order; systemInstruction is "currently text only" (caching#CachedContent). */
export function systemParts(messages: ChatMessage[]): Part[] {
  return messages.flatMap((m, i) => (isInstruction(m) ? [{ text: textOnly(m, i) }] : [])).filter((p) => p.text);
}

export function toContents(messages: ChatMessage[], sign: boolean): Content[] {
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
  if (m.role === "user") return { role: "user", parts: contentParts(m, i) };
  if (m.role === "tool") return { role: "user", parts: [functionResponse(m, i, names)] };
  const parts = contentParts(m, i);
  for (const call of m.tool_calls ?? []) {
    names.set(call.id, call.function.name);
    // The client's id goes back as it came: Gemini pairs functionResponse.id with functionCall.id.
    const part: Part = { functionCall: { id: call.id, name: call.function.name, args: argsOf(call.function.arguments, i) } };
    if (sign) part.thoughtSignature = FOREIGN_SIGNATURE;
    parts.push(part);
  }
  return { role: "model", parts };
}

/**
 * Text parts stay separate parts; a data: URL image is `inlineData` (Part.inlineData, Blob).
 * An https URL never reaches here: Gemini's `fileData` takes only Files API / allowed URIs,
 * so the adapter does not declare "image_urls" and the core answers 400 first.
 */
function contentParts(m: ChatMessage, i: number): Part[] {
  return partsOf(m.content).map((p) => {
    if (p.type === "text") return { text: p.text };
    const image = inlineImage(p.image_url.url);
    if (!image) throw unsupported(`messages.${i}.content`, "Gemini takes images as data: URLs only (no download of https URLs).");
    return { inlineData: image };
  });
}

function textOnly(m: ChatMessage, i: number): string {
  if (Array.isArray(m.content) && m.content.some((p) => p.type !== "text")) {
    throw unsupported(`messages.${i}.content`, `Gemini takes images in user and assistant messages only, not in '${m.role}' messages.`);
  }
  return textOf(m.content);
}

function functionResponse(m: ChatMessage, i: number, names: Map<string, string>): Part {
  const id = m.tool_call_id as string; // the core rejects tool messages without one
  const name = names.get(id) ?? m.name;
  if (!name) throw unsupported(`messages.${i}.tool_call_id`, "matches no earlier assistant tool call; Gemini needs the function name");
  return { functionResponse: { id, name, response: responseOf(textOnly(m, i)) } };
}

/** FunctionResponse.response is a Struct: JSON objects pass as they are, anything else is wrapped. */
function responseOf(text: string): Record<string, unknown> {
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    /* plain text stays a string */
  }
  return isObject(value) ? value : { content: value };
}

function argsOf(json: string, i: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = json.trim() === "" ? {} : JSON.parse(json);
  } catch {
    throw unsupported(`messages.${i}.tool_calls`, "function.arguments must be a JSON object for Gemini");
  }
  if (!isObject(value)) throw unsupported(`messages.${i}.tool_calls`, "function.arguments must be a JSON object for Gemini");
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

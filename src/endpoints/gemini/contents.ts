/**
 * Gemini `contents` and `systemInstruction` -> the internal chat messages, for a request
 * translated to a provider other than Google (docs/gemini.md). Gemini has no call ids: a
 * functionCall without one gets `gemini_call_<turn>_<part>`, the same for the same history on
 * every request, and a functionResponse pairs with its call by id, else with the earliest
 * unanswered call of the same name. What has no counterpart in chat is reported as a problem
 * (the 400 of a translated request, never a silent drop); the model's own thoughts and their
 * signatures are hints, dropped.
 */
import type { ChatMessage, ContentPart, ToolCall } from "../../core/chat-request.js";
import type { Content, Part } from "./schema.js";

export interface Problem {
  param: string;
  problem: string;
}

interface Pending {
  id: string;
  name: string;
}

/** The system message from systemInstruction (text parts only). */
export function systemMessage(system: Content | undefined, problems: Problem[]): ChatMessage[] {
  if (!system) return [];
  const texts = system.parts.flatMap((p, i) => {
    if (typeof p.text === "string") return [p.text];
    problems.push({ param: `systemInstruction.parts.${i}`, problem: "only text parts can be translated for this model" });
    return [];
  });
  return texts.length ? [{ role: "system", content: texts.join("\n") }] : [];
}

export function toMessages(contents: Content[], problems: Problem[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const pending: Pending[] = [];
  contents.forEach((c, turn) => {
    if (c.role === "model") messages.push(modelTurn(c, turn, pending, problems));
    else messages.push(...userTurn(c, turn, pending, problems));
  });
  return messages.filter((m) => m.role !== "assistant" || m.content || m.tool_calls?.length);
}

function modelTurn(c: Content, turn: number, pending: Pending[], problems: Problem[]): ChatMessage {
  let text = "";
  const calls: ToolCall[] = [];
  c.parts.forEach((p, i) => {
    if (p.functionCall) {
      const id = p.functionCall.id || `gemini_call_${turn}_${i}`;
      pending.push({ id, name: p.functionCall.name });
      calls.push({ id, type: "function", function: { name: p.functionCall.name, arguments: JSON.stringify(p.functionCall.args ?? {}) } });
    } else if (typeof p.text === "string") {
      if (!p.thought) text += p.text;
    } else other(p, `contents.${turn}.parts.${i}`, problems);
  });
  return { role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls } : {}) };
}

/** Function responses become tool messages (first, right after the calls they answer); the rest one user message. */
function userTurn(c: Content, turn: number, pending: Pending[], problems: Problem[]): ChatMessage[] {
  const parts: ContentPart[] = [];
  c.parts.forEach((p, i) => {
    const at = `contents.${turn}.parts.${i}`;
    if (p.functionResponse) return;
    if (typeof p.text === "string") {
      if (!p.thought) parts.push({ type: "text", text: p.text });
    } else if (p.inlineData && p.inlineData.mimeType.startsWith("image/")) {
      parts.push({ type: "image_url", image_url: { url: `data:${p.inlineData.mimeType};base64,${p.inlineData.data}` } });
    } else other(p, at, problems);
  });
  const tools = toolMessages(c, turn, pending, problems);
  if (!parts.length) return tools;
  const content = parts.every((p) => p.type === "text") ? parts.map((p) => (p as { text: string }).text).join("") : parts;
  return [...tools, { role: "user", content }];
}

/** Responses with an id claim their call first; the others then take the earliest unanswered call of their name. */
function toolMessages(c: Content, turn: number, pending: Pending[], problems: Problem[]): ChatMessage[] {
  const responses = c.parts.flatMap((p, i) => (p.functionResponse ? [{ r: p.functionResponse, at: `contents.${turn}.parts.${i}` }] : []));
  const claim = (match: (call: Pending) => boolean) => {
    const i = pending.findIndex(match);
    return i < 0 ? undefined : pending.splice(i, 1)[0];
  };
  const ids = responses.map(({ r }) => (r.id ? claim((call) => call.id === r.id) : undefined));
  return responses.map(({ r, at }, i) => {
    const call = ids[i] ?? (r.id ? undefined : claim((p) => p.name === r.name));
    if (!call) problems.push({ param: `${at}.functionResponse`, problem: `answers no earlier functionCall of '${r.name}'` });
    return { role: "tool" as const, tool_call_id: call?.id ?? r.id ?? r.name, content: JSON.stringify(r.response) };
  });
}

/** A part kind chat has no form for (fileData, non-image inlineData, executableCode, ...): the request cannot be translated. */
function other(p: Part, at: string, problems: Problem[]): void {
  const kind = Object.keys(p).find((k) => k !== "thought" && k !== "thoughtSignature");
  if (!kind) return; // a bare thought signature: a hint for Google's models only
  const detail = kind === "inlineData" ? `inlineData of type '${p.inlineData?.mimeType}'` : kind;
  problems.push({
    param: `${at}.${kind}`,
    problem: `${detail} cannot be translated for this model (only text, images, functionCall and functionResponse can)`,
  });
}

/**
 * Where a streamed item keeps its text: the string fields a stream's text and tool arguments
 * travel in, whatever the item's form (a chat delta's `content` and `arguments`, Anthropic's
 * `delta.text` and `partial_json`, Google's `parts[].text` and `functionCall.args`, the Responses
 * API's `delta` and `text`). Ids, types and model names are not text and are left out.
 */
export interface Slot {
  text: string;
  set(text: string): void;
}

const TEXT_KEYS = new Set(["content", "text", "delta", "partial_json", "arguments", "thinking", "refusal", "output_text"]);
/** Objects whose every string is text (a tool call's arguments as an object). */
const TEXT_OBJECTS = new Set(["args", "input", "arguments"]);

export function slotsOf(item: unknown): Slot[] {
  const out: Slot[] = [];
  collect(item, false, out, 0);
  return out;
}

function collect(value: unknown, inText: boolean, out: Slot[], depth: number): void {
  if (!value || typeof value !== "object" || depth > 32) return;
  const box = value as Record<string | number, unknown>;
  for (const k of Array.isArray(value) ? value.keys() : Object.keys(value)) {
    const v = box[k];
    const text = inText || (typeof k === "string" && TEXT_KEYS.has(k));
    if (typeof v === "string") {
      if (text && v.length > 0) out.push({ text: v, set: (t) => void (box[k] = t) });
    } else collect(v, inText || (typeof k === "string" && TEXT_OBJECTS.has(k)), out, depth + 1);
  }
}

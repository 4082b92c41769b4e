import { dropNullFields, isObject } from "../../core/null-fields.js";

/** Object levels of a chat request where `null` stands for "not sent" (JSON Schemas inside are left alone). */
export function dropNulls(body: unknown): void {
  if (!isObject(body)) return;
  dropNullFields(body);
  if (isObject(body.stream_options)) dropNullFields(body.stream_options);
  if (isObject(body.response_format)) {
    dropNullFields(body.response_format);
    if (isObject(body.response_format.json_schema)) dropNullFields(body.response_format.json_schema);
  }
  if (Array.isArray(body.tools)) for (const t of body.tools) if (isObject(t) && isObject(t.function)) dropNullFields(t.function);
  if (!Array.isArray(body.messages)) return;
  for (const m of body.messages) {
    if (!isObject(m)) continue;
    // `content: null` and `audio: null` are meaningful as they are (an assistant turn of only tool calls).
    for (const k of Object.keys(m)) if (m[k] === null && k !== "content" && k !== "audio" && k !== "refusal") delete m[k];
  }
}

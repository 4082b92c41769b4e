/**
 * What the chosen Azure OpenAI `api-version` knows of the OpenAI superset, per Azure's API
 * version history (https://learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle,
 * "Changes between ..."): structured outputs (`response_format: json_schema`) came with
 * 2024-08-01-preview; `max_completion_tokens` and `parallel_tool_calls` with 2024-09-01-preview;
 * the `developer` role with 2024-12-01-preview (o1). GA 2024-10-21 has the first two. The v1
 * API (`apiVersion: v1`) follows OpenAI's own.
 */
import { unsupported } from "../../src/plugin/contract.js";

const STRUCTURED_OUTPUTS = "2024-08-01";
const MAX_COMPLETION_TOKENS = "2024-09-01";
const DEVELOPER_ROLE = "2024-12-01";

/** `2024-10-21`, `2024-12-01-preview`: compared by their date; `v1` and other names are the newest. */
const atLeast = (version: string, date: string): boolean => !/^\d{4}-\d{2}-\d{2}/.test(version) || version.slice(0, 10) >= date;

interface WireMessage {
  role?: string;
}

/** The outgoing body adjusted to what `version` accepts; a 400 for what it cannot honour at all. */
export function forApiVersion(body: Record<string, unknown>, version: string): Record<string, unknown> {
  const out = { ...body };
  if ((out.response_format as { type?: string } | undefined)?.type === "json_schema" && !atLeast(version, STRUCTURED_OUTPUTS)) {
    throw unsupported("response_format", `json_schema needs Azure api-version ${STRUCTURED_OUTPUTS}-preview or later (this instance uses ${version})`);
  }
  if (!atLeast(version, MAX_COMPLETION_TOKENS)) {
    if (out.max_completion_tokens !== undefined) ((out.max_tokens = out.max_completion_tokens), delete out.max_completion_tokens);
    if (out.parallel_tool_calls === false)
      throw unsupported("parallel_tool_calls", `needs Azure api-version ${MAX_COMPLETION_TOKENS}-preview or later (this instance uses ${version})`);
    delete out.parallel_tool_calls;
  }
  if (!atLeast(version, DEVELOPER_ROLE)) {
    out.messages = (out.messages as WireMessage[]).map((m) => (m.role === "developer" ? { ...m, role: "system" } : m));
  }
  return out;
}

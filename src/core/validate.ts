/**
 * Request validation with docs/http.md's `<field>: <problem>` messages. zod 4's own messages
 * ("Invalid input: expected string, received undefined") are reworded into the stable
 * forms the spec shows (`messages: Required`, `foo: Unrecognized key`).
 */
import type { z } from "zod";
import { invalidRequest } from "./errors.js";

type Issue = z.core.$ZodIssue;

const MAX_REPORTED = 3;

/**
 * The most messages, content parts and tool calls one request may hold together. zod spends
 * about 1 µs per element, valid or not: this bounds what refusing any body can cost (~25 ms
 * of CPU at the 8 MiB body limit; docs/limits.md). Agent histories are far below it.
 */
export const MAX_REQUEST_ITEMS = 20_000;

/** Counted before zod runs, so a body of 300,000 tiny messages is refused at once. */
export function checkItemCount(body: unknown): void {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return;
  let items = messages.length;
  for (let i = 0; i < messages.length && items <= MAX_REQUEST_ITEMS; i++) {
    const m = messages[i] as { content?: unknown; tool_calls?: unknown } | null;
    if (Array.isArray(m?.content)) items += m.content.length;
    if (Array.isArray(m?.tool_calls)) items += m.tool_calls.length;
  }
  if (items > MAX_REQUEST_ITEMS) {
    throw invalidRequest(
      `messages: A request may hold at most ${MAX_REQUEST_ITEMS} messages, content parts and tool calls together`,
      "request_too_large",
      "messages",
    );
  }
}

export function validate<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  checkItemCount(body);
  const result = schema.safeParse(body, { reportInput: true });
  if (result.success) return result.data;
  const lines = result.error.issues.flatMap(describe).slice(0, MAX_REPORTED);
  throw invalidRequest(lines.join("; "), null, paramOf(result.error.issues[0]));
}

function fieldPath(path: PropertyKey[]): string {
  return path.length ? path.map(String).join(".") : "body";
}

/** OpenAI's `param`: the first offending field's path (`body` problems have none). */
function paramOf(issue: Issue | undefined): string | null {
  if (!issue) return null;
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]!] : issue.path;
  return path.length ? fieldPath(path) : null;
}

function describe(issue: Issue): string[] {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => `${fieldPath([...issue.path, key])}: Unrecognized key`);
  }
  return [`${fieldPath(issue.path)}: ${problem(issue)}`];
}

function problem(issue: Issue): string {
  if ((issue.code === "invalid_type" || issue.code === "invalid_value") && issue.input === undefined) return "Required";
  switch (issue.code) {
    case "invalid_type":
      return `Expected ${issue.expected}, received ${typeName(issue.input)}`;
    case "too_big":
      return bound(issue.origin, "at most", "less than or equal to", issue.maximum, issue.inclusive);
    case "too_small":
      return bound(issue.origin, "at least", "greater than or equal to", issue.minimum, issue.inclusive);
    case "invalid_value":
      return `Invalid value. Expected ${issue.values.map((v) => JSON.stringify(v)).join(" | ")}`;
    case "invalid_union":
      return unionProblem(issue.path.at(-1));
    default:
      return issue.message;
  }
}

/** Which forms a union field takes, said the way the OpenAI reference says it. */
function unionProblem(field: PropertyKey | undefined): string {
  if (field === "stop") return "Expected a string or an array of strings";
  if (field === "content") return "Expected a string, null or an array of content parts ({type: text} or {type: image_url})";
  if (field === "tool_choice") return `Expected "none", "auto", "required" or {type: "function", function: {name}}`;
  if (field === "response_format") return `Expected {type: "text"}, {type: "json_object"} or {type: "json_schema", json_schema: {name, schema}}`;
  return "Invalid input: matches none of the allowed forms";
}

function bound(origin: string, countWord: string, numberWord: string, limit: unknown, inclusive?: boolean): string {
  if (origin === "array") return `Array must contain ${countWord} ${String(limit)} element(s)`;
  if (origin === "string") return `String must contain ${countWord} ${String(limit)} character(s)`;
  const word = inclusive === false ? numberWord.replace(" or equal to", "") : numberWord;
  return `Number must be ${word} ${String(limit)}`;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/**
 * Request validation with api.md's `<field>: <problem>` messages. zod 4's own messages
 * ("Invalid input: expected string, received undefined") are reworded into the stable
 * forms the spec shows (`messages: Required`, `foo: Unrecognized key`).
 */
import type { z } from "zod";
import { invalidRequest } from "./errors.js";

type Issue = z.core.$ZodIssue;

const MAX_REPORTED = 3;

export function validate<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body, { reportInput: true });
  if (result.success) return result.data;
  const lines = result.error.issues.flatMap(describe).slice(0, MAX_REPORTED);
  throw invalidRequest(lines.join("; "));
}

function fieldPath(path: PropertyKey[]): string {
  return path.length ? path.map(String).join(".") : "body";
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
      return "Expected a string or an array of strings";
    default:
      return issue.message;
  }
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

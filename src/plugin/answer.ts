/**
 * Reading a provider's answer at the adapter's edge: each adapter states, as a zod schema, the
 * fields it reads (non-strict, so fields it ignores pass), and reads the answer through it. An
 * answer that breaks the schema is an InvalidAnswer: that endpoint failed, and the client gets
 * 502 upstream_invalid_response when none answered usably (docs/limits.md). The failing path
 * goes to the operator's log (src/upstream/provider-notices.ts), never to the client.
 */
import { z } from "zod";
import type { GatewayError } from "../core/errors.js";
import { InvalidAnswer } from "./failure.js";

/** A 2xx answer that is not the provider's format; `detail` is for the log only. */
export function invalidAnswer(detail: string): GatewayError {
  return new InvalidAnswer(detail);
}

/**
 * `json` through `schema`. A break names `what` (provider and answer kind), the failing path
 * and zod's message, never the value sent, which may hold the user's content.
 */
export function readAnswer<T>(schema: z.ZodType<T>, json: unknown, what: string): T {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  throw invalidAnswer(`${what}: ${describe(parsed.error.issues[0])}`);
}

/** The innermost issue of the first failing branch: a union's own message says only "Invalid input". */
function describe(issue: z.core.$ZodIssue | undefined): string {
  const path: PropertyKey[] = [];
  while (issue) {
    path.push(...issue.path);
    const inner = issue.code === "invalid_union" ? issue.errors.find((branch) => branch.length > 0)?.[0] : undefined;
    if (!inner) break;
    issue = inner;
  }
  return `${path.length > 0 ? path.map(String).join(".") : "(root)"}: ${issue?.message ?? "not the expected format"}`;
}

type Typed = z.ZodObject<{ type: z.ZodLiteral<string> }>;

/** What a block or event of a type the adapter does not know reads as: one constant, nothing made per event. */
const OTHER = Object.freeze({ type: "(other)" as const });

/**
 * Blocks or events told apart by `type`: the known ones are checked by their schema; any
 * other type reads as OTHER, so a type the provider adds later is ignored as before rather
 * than failing the answer.
 */
export function knownTypes<const T extends readonly [Typed, ...Typed[]]>(known: T) {
  const names = new Set(known.map((s) => s.shape.type.value));
  const other = z.object({ type: z.string().refine((t) => !names.has(t)) }).transform(() => OTHER);
  return z.union([z.discriminatedUnion("type", known), other]);
}

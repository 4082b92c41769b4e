/** Raw HTTP helpers and the assertions every error response must pass (docs/http.md "Errors"). */
import { expect } from "vitest";

export function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The error object has exactly four properties and request_id equals X-Request-Id. */
export async function expectError(res: Response, status: number, type: string, code: string | null): Promise<{ message: string; request_id: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "request_id", "type"]);
  expect(body.error.type).toBe(type);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
  expectLimitHeaders(res);
  return body.error as { message: string; request_id: string };
}

export function expectLimitHeaders(res: Response): void {
  for (const h of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    expect(res.headers.get(h), h).toMatch(/^\d+$/);
  }
  expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
}

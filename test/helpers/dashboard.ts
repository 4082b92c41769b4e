/** Talking to the dashboard API as a browser would: same-origin requests with the session cookie. */
import { addUser } from "../../src/operations/dashboard-users.js";
import type { TestGateway } from "./gateway.js";

export const PASSWORD = "correct horse battery";

export interface Call {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function call(
  gw: TestGateway,
  method: string,
  path: string,
  o: { cookie?: string; body?: unknown; origin?: string | null; headers?: Record<string, string> } = {},
): Promise<Call> {
  const headers: Record<string, string> = { ...o.headers };
  const origin = o.origin === undefined ? gw.url : o.origin;
  if (origin !== null) headers.origin = origin;
  if (o.cookie) headers.cookie = o.cookie;
  if (o.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${gw.url}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body), redirect: "manual" });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** `name=value` of a Set-Cookie header, for the next request's Cookie header. */
export const cookieOf = (r: Call) => (r.headers.get("set-cookie") ?? "").split(";")[0]!;

/** The audit actor of users a test sets up by calling the operation directly (as `gateway users add` would). */
export const SETUP = { actor: "cli:test-setup", ip: null };

export const tokenOf = (link: string) => new URL(link.replace("#/", "")).searchParams.get("token")!;

/** A user made as `gateway users add` makes one, who then opens the link and sets a password. */
export async function signUp(gw: TestGateway, email: string, account: string, admin = false): Promise<{ cookie: string; link: string }> {
  const { link } = await addUser(gw.store, { email, account, admin }, gw.url, Date.now(), SETUP);
  const r = await call(gw, "POST", "/dashboard/api/password", { body: { token: tokenOf(link), password: PASSWORD } });
  if (r.status !== 200) throw new Error(`set password: ${r.status} ${r.text}`);
  return { cookie: cookieOf(r), link };
}

/** The dashboard API client: JSON in and out, the session cookie sent by the browser, errors as `ApiError`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/dashboard/api${path}`, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => ({}))) as { error?: { message?: string; code?: string | null } };
  if (!res.ok) throw new ApiError(res.status, data.error?.message ?? `Request failed (${res.status})`, data.error?.code ?? null);
  return data as T;
}

/** `?account=` for admins looking at another account. */
export const withAccount = (path: string, account: string | undefined) =>
  account ? `${path}${path.includes("?") ? "&" : "?"}account=${encodeURIComponent(account)}` : path;

/** How this gateway lets users sign in (GET /sign-in-methods). */
export interface SignInMethods {
  password: boolean;
  sso: boolean;
}

export type Role = "owner" | "admin" | "member" | "viewer";
export interface Me {
  email: string;
  /** Where the dashboard opens. */
  account: string;
  /** An instance administrator: every account, as owner. */
  admin: boolean;
  role: Role | null;
  memberships: Array<{ account: string; role: Role }>;
}
export interface Member {
  email: string;
  role: Role;
  /** Opens nothing yet: another account's owner invited them (docs/dashboard.md "Invitations"). */
  pending: boolean;
  created_at: string;
}
export interface MemberAdded {
  email: string;
  account: string;
  role: Role;
  created: boolean;
  pending: boolean;
  link: string | null;
  expires_at: string | null;
}
export interface KeyView {
  id: string;
  name: string;
  account: string;
  masked: string;
  state: string;
  created_at: string | null;
  expires_at: string | null;
  last_used_at: string | null;
  rpm: number | null;
}
interface Totals {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: string;
  /** Requests answered from the response cache, and what they would have cost at list price. */
  cache_hits: number;
  cache_saved: string;
}
export interface Usage extends Totals {
  by_model: Array<Totals & { model: string }>;
  by_key: Array<Totals & { key_id: string; name: string | null }>;
  daily: Array<{ day: string; cost: string; requests: number }>;
  recent: Array<{
    request_id: string;
    created_at: string;
    key_name: string | null;
    model: string;
    provider: string | null;
    prompt_tokens: number;
    completion_tokens: number;
    cost: string;
    status: number;
    latency_ms: number;
    byok: boolean;
  }>;
}

/** One row of the Usage page's breakdown, as `gateway usage --by ... --json` prints it. */
export interface UsageGroupRow {
  group: string | null;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: string;
}

/** Budget fields of a key (docs/limits.md "Budgets"). */
export interface KeyBudget {
  budget: string | null;
  budget_period: string;
  spent: string;
  /** An owner or admin set the limits: the member who created the key may only tighten them. */
  limits_by_manager: boolean;
}
interface BudgetView {
  account: string;
  member: string | null;
  level: "account" | "member";
  limit: string;
  period: string;
  spent: string;
  remaining: string;
}
export interface Budgets {
  budgets: BudgetView[];
  members: string[];
}

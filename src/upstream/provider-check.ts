/**
 * Is a provider's key accepted? One cheap live call: the plugin's own models list request
 * (GET /v1/models for OpenAI-format providers, Anthropic's /v1/models, Gemini's models.list,
 * ...), the one `gateway models sync` makes. Shared by `gateway init` and `gateway doctor`.
 * The result never carries the key or upstream text (bodies can quote key fragments).
 */
import type { ProviderInstance } from "../plugin/load.js";
import { bodyJson, Upstream, type PoolSettings } from "./upstream.js";
import { UpstreamFailure } from "../plugin/failure.js";
import { baseUrlHint, shownUrl } from "./base-url.js";

/** `not_found`: the provider's own API answered 404, a wrong base URL (upstream/base-url.ts): a configuration error, as `rejected` is. */
type KeyStatus = "accepted" | "rejected" | "not_found" | "unreachable" | "failed" | "no_key" | "unchecked";

export interface KeyCheck {
  provider: string;
  status: KeyStatus;
  /** One phrase for a person: "accepted (12 models)", "rejected (HTTP 401)", "unreachable (ECONNREFUSED)". */
  detail: string;
}

const TIMEOUT_MS = 10_000;

/** Network codes that mean "this machine is offline" rather than "that host is wrong". */
const OFFLINE = new Set(["ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);

/** `pool`: config `server.upstream`, so a provider behind a private CA (`caFile`) is reached as `serve` reaches it. */
export async function checkKey(instance: ProviderInstance, pool: PoolSettings = {}, timeoutMs = TIMEOUT_MS): Promise<KeyCheck> {
  const { plugin, settings } = instance;
  const provider = settings.id;
  const keyless = plugin.describe?.keyless === true;
  if (settings.apiKey === undefined && !keyless) return { provider, status: "no_key", detail: "no key" };
  if (!plugin.models) return { provider, status: "unchecked", detail: `not checked (plugin ${plugin.name} has no models request)` };
  const upstream = new Upstream({ connect: timeoutMs, firstByte: timeoutMs, idle: timeoutMs }, pool);
  let url = settings.baseUrl;
  try {
    const req = await plugin.models.request({ settings, apiKey: settings.apiKey ?? "" });
    url = req.url;
    const res = await upstream.send({ method: "GET", ...req }, plugin, AbortSignal.timeout(timeoutMs));
    const models = plugin.models.response(await bodyJson(res));
    return { provider, status: "accepted", detail: `accepted (${models.length} model${models.length === 1 ? "" : "s"} listed)` };
  } catch (err) {
    if (err instanceof UpstreamFailure && err.upstreamStatus === 404)
      return { provider, status: "not_found", detail: `not checked: ${shownUrl(url)} answered HTTP 404: ${baseUrlHint(instance)}` };
    return { provider, ...describe(err, timeoutMs) };
  } finally {
    await upstream.close();
  }
}

function describe(err: unknown, timeoutMs: number): Omit<KeyCheck, "provider"> {
  if (err instanceof UpstreamFailure) {
    if (err.outcome === "key_rejected") return { status: "rejected", detail: `rejected (HTTP ${err.upstreamStatus})` };
    if (err.upstreamStatus !== null) return { status: "failed", detail: `not checked: the provider answered HTTP ${err.upstreamStatus}` };
    const code = typeof err.cause === "string" && /^[A-Z][A-Z0-9_]*$/.test(err.cause) ? err.cause : "network error";
    return { status: "unreachable", detail: `not checked: unreachable (${code})${OFFLINE.has(code) ? ": offline?" : ""}` };
  }
  const name = (err as Error | undefined)?.name;
  if (name === "TimeoutError" || name === "AbortError") return { status: "unreachable", detail: `not checked: no answer within ${timeoutMs / 1000} s` };
  return { status: "failed", detail: "not checked: the models list was not in the provider's format" };
}

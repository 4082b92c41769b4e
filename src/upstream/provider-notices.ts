/**
 * What the operator must hear about a provider, at error level and at most once a minute per
 * provider and kind, so a busy gateway does not flood its log (docs/observability.md, "Why a
 * request failed"). Never a key, a URL or upstream text:
 * - `rejected`: the provider refused the gateway's own key (401/403, or what a plugin classifies
 *   as key rejection): the operator's to fix, not a blip (docs/cli.md);
 * - `failed`: the provider did not answer (connection refused, timeout, TLS, DNS, 5xx, 429),
 *   with the reason (upstream/failure-reason.ts);
 * - `invalid`: a 2xx answer the gateway could not use: the client sees only the generic 502,
 *   after that one attempt, so this line names where the adapter's schema broke (docs/limits.md);
 * - `not found`: a 404 from the provider's own API, most often a wrong base URL (the client gets
 *   only the generic 400 `upstream_rejected`), with the method and path asked for (never the
 *   query or the host's credentials) and the base URL's likely fix (upstream/base-url.ts).
 */
import { sayOnStderr } from "../core/one-line.js";

const EVERY_MS = 60_000;

export class ProviderNotices {
  private last = new Map<string, number>();

  constructor(private write: (line: string) => void = sayOnStderr) {}

  rejected(provider: string, status: number | null, now: number): void {
    this.say(
      "rejected",
      provider,
      now,
      () =>
        `[gateway] error: provider ${provider} rejected the gateway's key${status === null ? "" : ` (HTTP ${status})`}: ` +
        `check providers.${provider}.apiKey or its environment variable (run gateway doctor); its requests fail over to other providers, else get 502 upstream_auth_failed`,
    );
  }

  failed(provider: string, reason: string, now: number): void {
    this.say(
      "failed",
      provider,
      now,
      () =>
        `[gateway] error: provider ${provider} failed (${reason}); its requests fail over to other providers, else get 503 upstream_unavailable. ` +
        `Check providers.${provider}.baseUrl and the network (run gateway doctor); GET /v1/health/providers shows its last_error`,
    );
  }

  invalid(provider: string, cause: unknown, now: number): void {
    this.say("invalid", provider, now, () => {
      const detail = cause instanceof Error ? cause.message : String(cause);
      return `[gateway] error: provider ${provider} sent an answer the gateway cannot use (${detail}); each such request gets 502 upstream_invalid_response, not asked again (docs/limits.md)`;
    });
  }

  notFound(provider: string, at: string | undefined, hint: string, now: number): void {
    this.say(
      "not_found",
      provider,
      now,
      () =>
        `[gateway] error: provider ${provider} answered HTTP 404 to ${at ?? "a request"}: ${hint}, or the provider does not serve that model ` +
        `(run gateway doctor); its requests get 400 upstream_rejected`,
    );
  }

  /** The line is built only when it is written. */
  private say(kind: string, provider: string, now: number, line: () => string): void {
    const key = `${kind}\0${provider}`;
    const at = this.last.get(key);
    if (at !== undefined && now - at < EVERY_MS) return;
    this.last.set(key, now);
    this.write(line());
  }
}

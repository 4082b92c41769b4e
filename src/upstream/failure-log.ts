/**
 * A provider that does not answer (connection refused, timeouts, TLS, DNS, 5xx, 429): said at
 * error level, at most once a minute per provider, with the reason (upstream/failure-reason.ts),
 * so an operator whose requests get 503 learns why without reading request lines
 * (docs/observability.md, "Why a request failed"). Never a URL, a key or upstream text.
 */
const EVERY_MS = 60_000;

export class UpstreamFailureLog {
  private last = new Map<string, number>();

  constructor(private write: (line: string) => void = (line) => console.error(line)) {}

  failed(provider: string, reason: string, now: number): void {
    const at = this.last.get(provider);
    if (at !== undefined && now - at < EVERY_MS) return;
    this.last.set(provider, now);
    this.write(
      `[gateway] error: provider ${provider} failed (${reason}); its requests fail over to other providers, else get 503 upstream_unavailable. ` +
        `Check providers.${provider}.baseUrl and the network (run gateway doctor); GET /v1/health/providers shows its last_error`,
    );
  }
}

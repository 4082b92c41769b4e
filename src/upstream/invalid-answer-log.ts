/**
 * A provider's 2xx answer the gateway could not use (not its format, over a cap): the client
 * sees only the generic 502 (docs/http.md), after that one attempt, so the operator learns here which provider sent
 * what and where it broke (the adapter's schema path, docs/limits.md). At most once a minute
 * per provider, as a provider that changed its format fails every request. Never the answer.
 */
const EVERY_MS = 60_000;

export class InvalidAnswerLog {
  private last = new Map<string, number>();

  constructor(private write: (line: string) => void = (line) => console.error(line)) {}

  invalid(provider: string, cause: unknown, now: number): void {
    const at = this.last.get(provider);
    if (at !== undefined && now - at < EVERY_MS) return;
    this.last.set(provider, now);
    const detail = cause instanceof Error ? cause.message : String(cause);
    this.write(
      `[gateway] error: provider ${provider} sent an answer the gateway cannot use (${detail}); each such request gets 502 upstream_invalid_response, not asked again (docs/limits.md)`,
    );
  }
}

/**
 * The provider refused the gateway's own (platform) key (401/403, or what a plugin classifies
 * as key rejection: Anthropic's billing_error, Gemini's API_KEY_INVALID). That is the
 * operator's to fix, not a blip (docs/cli.md): said at error level, at most once a minute
 * per provider, so a busy gateway does not flood its log. Never the key, never upstream text.
 */
const EVERY_MS = 60_000;

export class KeyRejectionLog {
  private last = new Map<string, number>();

  constructor(private write: (line: string) => void = (line) => console.error(line)) {}

  rejected(provider: string, status: number | null, now: number): void {
    const at = this.last.get(provider);
    if (at !== undefined && now - at < EVERY_MS) return;
    this.last.set(provider, now);
    this.write(
      `[gateway] error: provider ${provider} rejected the gateway's key${status === null ? "" : ` (HTTP ${status})`}: ` +
        `check providers.${provider}.apiKey or its environment variable (run gateway doctor); its requests fail over to other providers, else get 502 upstream_auth_failed`,
    );
  }
}

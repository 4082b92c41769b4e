/**
 * A 404 from a provider's own API is a configuration error, not a blip (docs/cli.md "A base URL
 * that answers 404"): almost always the base URL's `/v1`, typed where the provider's convention
 * has none (Anthropic, Gemini: the adapter adds `/v1/...` or `/v1beta/...` itself) or left out
 * where it has one (OpenAI and the OpenAI-format presets). The convention is read from the
 * plugin's own default base URL, so a new plugin needs nothing here.
 */
import type { ProviderInstance } from "../plugin/load.js";

const endsInV1 = (url: string) => /\/v1$/.test(url.replace(/\/+$/, ""));

/** The fix to suggest for this instance's base URL. */
export function baseUrlHint({ settings, plugin }: ProviderInstance): string {
  const field = `providers.${settings.id}.baseUrl`;
  const fallback = plugin.defaults.baseUrl;
  if (fallback && endsInV1(settings.baseUrl) && !endsInV1(fallback)) return `the base URL should not end in /v1 (${field}; the default is ${fallback})`;
  if (fallback && !endsInV1(settings.baseUrl) && endsInV1(fallback)) return `the base URL should end in /v1 (${field}; the default is ${fallback})`;
  return `check ${field}${fallback ? ` (the default is ${fallback})` : ""}`;
}

/** A URL as an operator may see it: no credentials, no query (Azure's api-version; a key some servers take there). */
export const shownUrl = (url: string): string => (URL.canParse(url) ? `${new URL(url).origin}${shownPath(url)}` : "(not a URL)");

/** Its path alone, for the request log's notices. */
export const shownPath = (url: string): string => (URL.canParse(url) ? new URL(url).pathname : "?");

/**
 * AWS credentials and region for one call. Bedrock has no API key: an instance's `apiKey`
 * (or an account's BYOK key) carries `ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]`, so
 * the one-string-per-provider key model works unchanged. Secret keys and session tokens
 * never contain ':' (base64 alphabet), so the split is unambiguous.
 */
import type { ProviderSettings } from "../../src/plugin/contract.js";
import { upstreamFailure } from "../../src/plugin/contract.js";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

function parseCredentials(apiKey: string): AwsCredentials | undefined {
  const [accessKeyId, secretAccessKey, ...rest] = apiKey.split(":");
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = rest.join(":");
  return sessionToken ? { accessKeyId, secretAccessKey, sessionToken } : { accessKeyId, secretAccessKey };
}

/**
 * A key without its secret cannot sign: treat it like a key AWS rejected (provider unhealthy,
 * fail over). The message never echoes the key.
 */
export function credentialsOf(apiKey: string): AwsCredentials {
  const credentials = parseCredentials(apiKey);
  if (!credentials) throw upstreamFailure("key_rejected", { retryable: true, detail: "bedrock key must be ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]" });
  return credentials;
}

const RUNTIME_HOST = /^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;

/** Option `region`, else the region in the runtime host name, else us-east-1 (the SDK's usual default). */
export function regionOf(settings: Pick<ProviderSettings, "baseUrl" | "options">): string {
  const option = settings.options.region;
  if (typeof option === "string" && option) return option;
  let host = "";
  try {
    host = new URL(settings.baseUrl).hostname;
  } catch {
    /* not a URL: fall back to the default region */
  }
  return RUNTIME_HOST.exec(host)?.[1] ?? "us-east-1";
}

/**
 * A webhook's signing secret: sealed at rest with the gateway's secret as BYOK keys are
 * (src/access/byok.ts: AES-256-GCM, the webhook's id bound in), and the signature a receiver
 * checks: `sha256=<hex HMAC-SHA256 of the raw body>` (docs/alerts.md).
 */
import { createHmac, randomBytes } from "node:crypto";
import { decrypt, encrypt } from "../access/byok.js";
import { WEBHOOK_PURPOSE as PURPOSE } from "../access/sealed.js";

export const sealWebhookSecret = (gatewaySecret: Buffer, webhookId: string, plaintext: string): Buffer => encrypt(gatewaySecret, PURPOSE, webhookId, plaintext);

/** undefined when the gateway's secret changed since it was sealed (or the row is damaged). */
export function openWebhookSecret(gatewaySecret: Buffer, webhookId: string, sealed: Buffer): string | undefined {
  try {
    return decrypt(gatewaySecret, PURPOSE, webhookId, sealed);
  } catch {
    return undefined;
  }
}

/** A new secret when `alerts add` was given none: 192 random bits. */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(24).toString("base64url")}`;

export const signature = (secret: string, body: string): string => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

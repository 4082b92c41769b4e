/**
 * Opening and sealing every kind of sealed value (src/store/sealed.ts lists them) with one
 * gateway secret: BYOK keys are bound to their account and provider (access/byok.ts), webhook
 * secrets to their webhook (alerts/secret.ts), MCP server headers to their server (mcp/credentials.ts). Used where all of them are handled at once:
 * `serve`'s start-up line and `doctor`'s finding for values the secret cannot open (docs/cli.md),
 * and `gateway db copy`, which re-seals them under the target's secret (docs/fleet.md).
 */
import type { SealedKind, SealedRow } from "../store/sealed.js";
import { decrypt, encrypt } from "./byok.js";

/** The associated data's first part for a webhook's secret: it cannot pass for a BYOK key or another webhook's. */
export const WEBHOOK_PURPOSE = "alert-webhook";

/** The same for an MCP server's sealed headers (mcp/credentials.ts). */
export const MCP_PURPOSE = "mcp-server";

const PURPOSE: Record<Exclude<SealedKind, "byok">, string> = { webhook: WEBHOOK_PURPOSE, mcp: MCP_PURPOSE };

const boundTo = (r: SealedRow): [string, string] => (r.kind === "byok" ? [r.owner[0]!, r.owner[1]!] : [PURPOSE[r.kind], r.owner[0]!]);

/** The plaintext, or undefined when this secret is not the one it was sealed with (or the row is damaged). */
export function openSealed(secret: Buffer, r: SealedRow): string | undefined {
  try {
    return decrypt(secret, ...boundTo(r), r.sealed);
  } catch {
    return undefined;
  }
}

/** The same value sealed under another secret, bound to the same row. */
export const sealAgain = (secret: Buffer, r: SealedRow, plaintext: string): Buffer => encrypt(secret, ...boundTo(r), plaintext);

const NAMES: Record<SealedKind, [string, string]> = {
  byok: ["BYOK key", "BYOK keys"],
  webhook: ["alert webhook secret", "alert webhook secrets"],
  mcp: ["MCP server's headers", "MCP servers' headers"],
};

/** What each kind is, by its row: a BYOK key by account/provider, a webhook by its id. Never the value. */
const label = (r: SealedRow) => r.owner.join("/");

/** "1 BYOK key (acme/openai) and 2 alert webhook secrets (whk_1, whk_2)": how many of each kind, which (at most `shown` each). */
export function sealedSummary(rows: SealedRow[], shown = 10): string {
  const parts = (Object.keys(NAMES) as SealedKind[]).flatMap((kind) => {
    const of = rows.filter((r) => r.kind === kind);
    if (of.length === 0) return [];
    const more = of.length > shown ? ` and ${of.length - shown} more` : "";
    return [`${of.length} ${NAMES[kind][of.length === 1 ? 0 : 1]} (${of.slice(0, shown).map(label).join(", ")}${more})`];
  });
  return parts.join(" and ");
}

/** What stops working for each kind, and how it comes back. */
const EFFECT: Record<SealedKind, string> = {
  byok: "requests that need a BYOK key get 400 byok_key_unreadable until it is set again ('gateway byok set')",
  webhook: "alerts to such a webhook end failed until it is added again ('gateway alerts add')",
  mcp: "calls to such an MCP server fail until it is added again ('gateway mcp add')",
};

/**
 * The line for stored values the current secret cannot open (`serve` at start, `doctor`);
 * undefined when it opens them all.
 */
export function unopenedLine(rows: SealedRow[], secret: Buffer): string | undefined {
  const shut = rows.filter((r) => openSealed(secret, r) === undefined);
  if (shut.length === 0) return undefined;
  const effects = [...new Set(shut.map((r) => EFFECT[r.kind]))].join("; ");
  return (
    `${sealedSummary(shut)} stored cannot be decrypted with the current secret (GATEWAY_SECRET, or the .secret file beside the ` +
    `database, is not the one ${shut.length === 1 ? "it was" : "they were"} sealed with): ${effects}`
  );
}

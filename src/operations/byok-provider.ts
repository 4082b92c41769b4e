/** The providers whose plugin takes an account's own key (docs/billing.md): what BYOK set/remove accept. */
import { invalidRequest } from "../core/errors.js";
import { byokPlugins } from "../plugin/load.js";

export async function byokProviderNames(): Promise<string[]> {
  return (await byokPlugins()).map((p) => p.name);
}

export async function checkByokProvider(provider: string): Promise<void> {
  const names = await byokProviderNames();
  if (!names.includes(provider)) throw invalidRequest(`unknown provider '${provider}': expected one of ${names.join(", ")}`, "unknown_provider", "provider");
}

/** Gemini API addresses and auth, shared by generateContent, embeddings and the model list. */
import type { CallContext } from "../../src/plugin/contract.js";

type Settings = CallContext["settings"];

export function root(settings: Settings): string {
  const version = typeof settings.options.apiVersion === "string" ? settings.options.apiVersion : "v1beta";
  return `${settings.baseUrl.replace(/\/+$/, "")}/${encodeURIComponent(version)}`;
}

/** `gemini-2.5-flash` is `models/gemini-2.5-flash`; a full resource name (`tunedModels/x`) is kept. */
export function resourceName(model: string): string {
  return model.includes("/") ? model : `models/${model}`;
}

/** The resource name as a URL path, each segment encoded. */
export function resource(model: string): string {
  return resourceName(model).split("/").map(encodeURIComponent).join("/");
}

export function headers(apiKey: string): Record<string, string> {
  return apiKey ? { "x-goog-api-key": apiKey } : {};
}

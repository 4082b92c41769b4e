/**
 * Google's paths carry the model and the method: `/v1beta/models/{model}:{method}` (and
 * `/v1/models/...`, which @google/genai 3.x uses by default). The model is what follows
 * `models/` up to the last `:`, percent-decoded; a vendor/model id keeps its slash
 * (`/v1beta/models/openai/gpt-5:generateContent`). docs/gemini.md.
 */

export const GEMINI_PREFIXES = ["/v1beta/models/", "/v1/models/"] as const;

type GeminiMethod = "generateContent" | "streamGenerateContent" | "countTokens";

const METHODS = new Set<string>(["generateContent", "streamGenerateContent", "countTokens"]);

export interface GeminiPath {
  model: string;
  method: GeminiMethod;
}

/** The model and method of a request URL (path and query), or null when it names no Gemini method. */
export function geminiPath(url: string): GeminiPath | null {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const prefix = GEMINI_PREFIXES.find((p) => path.startsWith(p));
  if (!prefix) return null;
  const rest = path.slice(prefix.length);
  const colon = rest.lastIndexOf(":");
  if (colon <= 0) return null;
  const method = rest.slice(colon + 1);
  if (!METHODS.has(method)) return null;
  const model = decoded(rest.slice(0, colon));
  return model ? { model, method: method as GeminiMethod } : null;
}

/** `models/gemini-2.5-flash` (the resource name, as some clients put it) is `gemini-2.5-flash`. */
export function modelOf(name: string): string {
  return name.startsWith("models/") ? name.slice("models/".length) : name;
}

function decoded(raw: string): string | null {
  try {
    return modelOf(decodeURIComponent(raw));
  } catch {
    return null;
  }
}

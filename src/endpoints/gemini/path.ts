/**
 * Google's paths carry the model and the method: `/v1beta/models/{model}:{method}` (and
 * `/v1/models/...`, which @google/genai 3.x uses by default). The model is what follows
 * `models/` up to the last `:`, percent-decoded; a vendor/model id keeps its slash
 * (`/v1beta/models/openai/gpt-5:generateContent`). A vendor/model id may also stand where
 * Google puts the resource name, without `models/` (`/v1beta/openai/gpt-5:generateContent`):
 * the AI SDK's google provider builds its path so for any id with a slash. docs/gemini.md.
 */

export const GEMINI_VERSIONS = ["/v1beta/", "/v1/"] as const;

export const GEMINI_PREFIXES = GEMINI_VERSIONS.map((v) => `${v}models/`);

export const CHAT_METHODS = ["generateContent", "streamGenerateContent", "countTokens"] as const;
export const EMBED_METHODS = ["embedContent", "batchEmbedContents"] as const;

type GeminiMethod = (typeof CHAT_METHODS)[number] | (typeof EMBED_METHODS)[number];

const METHODS = new Set<string>([...CHAT_METHODS, ...EMBED_METHODS]);

export interface GeminiPath {
  model: string;
  method: GeminiMethod;
}

/** The model and method of a request URL (path and query), or null when it names no Gemini method. */
export function geminiPath(url: string): GeminiPath | null {
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  const version = GEMINI_VERSIONS.find((v) => path.startsWith(v));
  if (!version) return null;
  const rest = path.slice(version.length);
  const colon = rest.lastIndexOf(":");
  if (colon <= 0) return null;
  const method = rest.slice(colon + 1);
  if (!METHODS.has(method)) return null;
  const raw = rest.slice(0, colon);
  const underModels = raw.startsWith("models/");
  const name = decoded(underModels ? raw.slice("models/".length) : raw);
  // Without `models/`, only a vendor/model id: `/v1/chat:generateContent` names nothing.
  if (name === null || (!underModels && !name.includes("/"))) return null;
  const model = modelOf(name);
  return model ? { model, method: method as GeminiMethod } : null;
}

export const isEmbedMethod = (method: GeminiMethod): method is (typeof EMBED_METHODS)[number] => method === "embedContent" || method === "batchEmbedContents";

/** `models/gemini-2.5-flash` (the resource name, as some clients put it) is `gemini-2.5-flash`. */
export function modelOf(name: string): string {
  return name.startsWith("models/") ? name.slice("models/".length) : name;
}

function decoded(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

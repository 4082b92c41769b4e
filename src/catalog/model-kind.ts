/**
 * A catalog model is a chat model or an embedding model (docs/embeddings.md): each API serves
 * only its own kind, and the other kind is a 400 `unsupported_model` before any hold or
 * upstream call. A model whose kind the catalog does not say is a chat model.
 */
import { invalidRequest } from "../core/errors.js";
import type { CatalogModel } from "../store/index.js";

/**
 * Ids that plainly name a non-chat model (embeddings, rerankers, speech, images, moderation,
 * realtime, legacy completions). Model lists and price lists rarely say what a model does, so
 * the name decides (`models sync`, `models sync --prices`).
 */
export const NOT_CHAT_NAME = /embed|rerank|whisper|tts|transcribe|dall-e|gpt-image|stable-diffusion|flux|sora|moderation|realtime|davinci|babbage/i;

const servesChat = (m: CatalogModel): boolean => m.capabilities?.chat !== false;
const servesEmbeddings = (m: CatalogModel): boolean => m.capabilities?.embeddings === true;

/** `/v1/models` capabilities: what docs/http.md's model entry lists. */
export function capabilitiesEntry(m: CatalogModel) {
  return { chat: servesChat(m), completions: false, embeddings: servesEmbeddings(m) };
}

export function requireChatModel(m: CatalogModel): void {
  if (!servesChat(m)) {
    throw invalidRequest(`model: '${m.id}' is an embedding model; send it to POST /v1/embeddings.`, "unsupported_model", "model");
  }
}

export function requireEmbeddingModel(m: CatalogModel): void {
  if (!servesEmbeddings(m)) {
    throw invalidRequest(
      `model: '${m.id}' is not an embedding model; GET /v1/models lists those with capabilities.embeddings true.`,
      "unsupported_model",
      "model",
    );
  }
}

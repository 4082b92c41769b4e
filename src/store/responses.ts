/** Stored responses: kept for `previous_response_id` and GET /v1/responses/{id}. */

export interface StoredResponse {
  id: string;
  account: string;
  /** ms, like the ledger's created_at: retention prunes both by the same cutoff. */
  createdAt: number;
  model: string;
  /** The response this one continued; its items come before this one's. */
  previousId: string | null;
  /** This turn's input items, then its output items (the Responses item form). */
  items: unknown[];
  /** The response object as it was answered. */
  response: unknown;
}

export interface ResponseStore {
  saveResponse(r: StoredResponse): Promise<void>;
  /** Only the owner's: another account's id reads as unknown. */
  findResponse(id: string, account: string): Promise<StoredResponse | undefined>;
  /**
   * `id` and the responses it continued, oldest first, the owner's only; reading stops after
   * `limit.depth` responses or once `limit.bytes` of items were read.
   */
  responseChain(id: string, account: string, limit: { depth: number; bytes: number }): Promise<StoredResponse[]>;
  deleteResponse(id: string, account: string): Promise<boolean>;
  /** Deletes responses created before `before` (ms); returns how many. */
  pruneResponses(before: number): Promise<number>;
}

/** Small shared pieces: an inline error, an empty state, dates, and a hook that loads from the API. */
import { useCallback, useEffect, useState } from "preact/hooks";
import type { ComponentChildren } from "preact";

export function ErrorLine({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

export const date = (iso: string | null) => (iso ? iso.slice(0, 16).replace("T", " ") : "—");

/** Loads `fn` now and whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    fn().then(
      (d) => (setData(d), setError(null)),
      (e: Error) => setError(e.message),
    );
  }, deps);
  useEffect(load, [load]);
  return { data, error, reload: load };
}

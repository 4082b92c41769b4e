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

/** The browser's time zone (IANA name), said beside every time shown (docs/dashboard.md, "Times"). */
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
const LOCAL = new Intl.DateTimeFormat("en-US", {
  timeZone: ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  hourCycle: "h23",
});

/** `2026-11-26 15:04 Europe/Paris`: the time in the browser's zone, the zone named. */
export function date(iso: string | null): string {
  if (!iso) return "—";
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  const p = Object.fromEntries(LOCAL.formatToParts(t).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${ZONE}`;
}

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

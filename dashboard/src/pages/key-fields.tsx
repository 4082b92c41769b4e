/** The budget, period, expiry and rpm fields shared by Create key and Edit (docs/dashboard.md "Keys"). */
export const PERIODS = ["day", "week", "month", "total"] as const;

export function KeyLimitFields({ budget, period, rpm }: { budget?: string | null; period?: string; rpm?: number | null }) {
  return (
    <>
      <label>
        Budget (USD)
        <input name="budget" inputMode="decimal" pattern="\d+(\.\d{1,9})?" defaultValue={budget ?? ""} />
      </label>
      <label>
        Budget period
        <select name="period">
          {PERIODS.map((p) => (
            <option value={p} selected={p === (period ?? "total")}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <label>
        Expires in days
        <input name="days" type="number" min={1} max={3650} inputMode="numeric" />
      </label>
      <label>
        Requests per minute
        <input name="rpm" type="number" min={1} inputMode="numeric" defaultValue={rpm ?? ""} />
      </label>
    </>
  );
}

/** The form's limits as the API takes them; `clear`: an empty field means "none" (Edit), else it is left out (Create). */
export function limitsOf(f: FormData, clear: boolean) {
  const text = (name: string) => String(f.get(name) ?? "").trim();
  const num = (name: string) => (text(name) ? Number(text(name)) : clear ? null : undefined);
  return {
    budget: text("budget") || (clear ? null : undefined),
    budget_period: text("period") || undefined,
    rpm: num("rpm"),
    expires_in_days: text("days") ? Number(text("days")) : undefined,
  };
}

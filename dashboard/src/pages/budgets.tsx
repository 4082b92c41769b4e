/**
 * Budgets (on the Credits page; owners and admins): the account's budget and each member's (all
 * keys they created), with spend this period and what remains; set and removed here or with
 * `gateway budgets`. A user who may not manage them does not see the section.
 */
import { useState } from "preact/hooks";
import { api, ApiError, withAccount, type Budgets } from "../api.js";
import { Empty, ErrorLine, useLoad } from "../ui.js";
import { PERIODS } from "./key-fields.js";

export function BudgetsSection({ account }: { account: string }) {
  const { data, error, reload } = useLoad(
    () =>
      api<Budgets>("GET", withAccount("/budgets", account)).catch((err: unknown): Budgets | "forbidden" => {
        if (err instanceof ApiError && err.status === 403) return "forbidden";
        throw err;
      }),
    [account],
  );
  const [failed, setFailed] = useState<string | null>(null);
  if (data === "forbidden") return null;
  const remove = async (member: string | null) => {
    try {
      await api("DELETE", withAccount(member ? `/budgets?member=${encodeURIComponent(member)}` : "/budgets", account));
      reload();
    } catch (err) {
      setFailed((err as Error).message);
    }
  };
  return (
    <section>
      <h3>Budgets</h3>
      {data && <BudgetForm account={account} members={data.members} onSaved={reload} />}
      <ErrorLine error={error ?? failed} />
      {data && data.budgets.length === 0 && <Empty>No budgets: only the balance limits spending.</Empty>}
      {data && data.budgets.length > 0 && (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Applies to</th>
                <th>Limit</th>
                <th>Spent</th>
                <th>Remaining</th>
                <th>
                  <span class="sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.budgets.map((b) => (
                <tr key={b.member ?? ""}>
                  <td data-label="Applies to">{b.member ?? "The whole account"}</td>
                  <td data-label="Limit">
                    ${b.limit} {b.period === "total" ? "in total" : `per ${b.period} (UTC)`}
                  </td>
                  <td data-label="Spent">${b.spent}</td>
                  <td data-label="Remaining">${b.remaining}</td>
                  <td>
                    <button type="button" class="danger" aria-label={`Remove budget of ${b.member ?? "the account"}`} onClick={() => remove(b.member)}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function BudgetForm({ account, members, onSaved }: { account: string; members: string[]; onSaved: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const member = String(f.get("member") ?? "");
    try {
      await api("PUT", "/budgets", { member: member || null, amount: String(f.get("amount") ?? "").trim(), period: f.get("period"), account });
      setError(null);
      form.reset();
      onSaved();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="card row" onSubmit={save}>
      <label>
        Applies to
        <select name="member">
          <option value="">The whole account</option>
          {members.map((m) => (
            <option value={m}>{m}</option>
          ))}
        </select>
      </label>
      <label>
        Budget (USD)
        <input name="amount" required inputMode="decimal" pattern="\d+(\.\d{1,9})?" />
      </label>
      <label>
        Period
        <select name="period">
          {PERIODS.map((p) => (
            <option value={p} selected={p === "month"}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Set budget</button>
      <ErrorLine error={error} />
    </form>
  );
}

/**
 * Credits: the balance and its history (who added or adjusted, why); an admin also sees every
 * account's balance and adds credits to any account, after which the page shows that account
 * (docs/dashboard.md).
 */
import { useState } from "preact/hooks";
import { api, withAccount } from "../api.js";
import { date, Empty, ErrorLine, useLoad } from "../ui.js";
import { BudgetsSection } from "./budgets.js";
import { Table } from "../table.js";

interface Credits {
  account: string;
  balance: string;
  history: Array<{ amount: string; kind: string; reason: string | null; by: string | null; created_at: string }>;
}

interface AccountRow {
  id: string;
  balance: string;
  keys: number;
  spend: string;
}

export function CreditsPage({ account, admin, onAccount }: { account: string; admin: boolean; onAccount: (a: string) => void }) {
  const { data, error, reload } = useLoad(() => api<Credits>("GET", withAccount("/credits", account)), [account]);
  const accounts = useLoad(() => (admin ? api<AccountRow[]>("GET", "/accounts") : Promise.resolve([])), [admin]);
  // The account just credited becomes the one shown, so the message and the balance agree.
  const added = (to: string) => {
    if (to === account) reload();
    else onAccount(to);
    accounts.reload();
  };
  return (
    <section>
      <h2>Credits</h2>
      <ErrorLine error={error} />
      {data && (
        <p class="balance">
          Balance of <strong>{data.account}</strong>: <strong>${data.balance}</strong>
        </p>
      )}
      {admin && <AddCredits account={account} accounts={accounts.data} onAdded={added} />}
      <BudgetsSection account={account} />
      <h3>History</h3>
      {data && data.history.length === 0 && <Empty>No credits yet.{admin ? "" : " The gateway's operator adds them."}</Empty>}
      {data && data.history.length > 0 && (
        <Table
          head={["Time", "Amount", "Kind", "By", "Reason"]}
          rows={data.history.map((h) => [date(h.created_at), `$${h.amount}`, h.kind, h.by ?? "", h.reason ?? ""])}
        />
      )}
      {admin && accounts.data && (
        <>
          <h3>Accounts</h3>
          <Table head={["Account", "Balance", "Keys", "Spend"]} rows={accounts.data.map((a) => [a.id, `$${a.balance}`, String(a.keys), `$${a.spend}`])} />
        </>
      )}
    </section>
  );
}

function AddCredits({ account, accounts, onAdded }: { account: string; accounts: AccountRow[] | null; onAdded: (to: string) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    try {
      const r = await api<{ account: string; added: string; balance: string }>("POST", "/credits", {
        account: f.get("account"),
        amount: String(f.get("amount") ?? "").trim(),
      });
      setDone(`Added $${r.added} to ${r.account}. Balance: $${r.balance}`);
      setError(null);
      (form.elements.namedItem("amount") as HTMLInputElement).value = "";
      onAdded(r.account);
    } catch (err) {
      setDone(null);
      setError((err as Error).message);
    }
  };
  return (
    <form class="card row" onSubmit={submit}>
      {/* Label and select side by side, not nested: the select's name is then exactly "Account". */}
      <div class="field">
        <label for="credit-account">Account</label>
        {/* Uncontrolled: the admin's choice survives re-renders (a message appearing). */}
        <select id="credit-account" name="account">
          {(accounts ?? [{ id: account }]).map((a) => (
            <option value={a.id} selected={a.id === account}>
              {a.id}
            </option>
          ))}
        </select>
      </div>
      <label>
        Amount
        <input name="amount" inputMode="decimal" placeholder="USD, e.g. 10 or 0.25" required pattern="\d+(\.\d{1,9})?" />
      </label>
      <button type="submit">Add credits</button>
      <ErrorLine error={error} />
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
    </form>
  );
}

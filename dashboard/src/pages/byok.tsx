/** BYOK: the account's own provider keys, set, listed masked, removed. */
import { useState } from "preact/hooks";
import { api, withAccount } from "../api.js";
import { date, Empty, ErrorLine, useLoad } from "../ui.js";

interface Byok {
  providers: string[];
  keys: Array<{ provider: string; masked: string; updated_at: string }>;
}

export function ByokPage({ account }: { account: string }) {
  const { data, error, reload } = useLoad(() => api<Byok>("GET", withAccount("/byok", account)), [account]);
  const [formError, setFormError] = useState<string | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    try {
      await api("PUT", withAccount(`/byok/${encodeURIComponent(String(f.get("provider")))}`, account), { key: f.get("key") });
      setFormError(null);
      form.reset();
      reload();
    } catch (err) {
      setFormError((err as Error).message);
    }
  };
  const remove = async (provider: string) => {
    try {
      await api("DELETE", withAccount(`/byok/${encodeURIComponent(provider)}`, account));
      reload();
    } catch (err) {
      setFormError((err as Error).message);
    }
  };
  return (
    <section>
      <h2>BYOK</h2>
      <p class="hint">
        Your own provider keys: requests to that provider use them and are not charged to the balance. Stored encrypted; shown only as their last 4 characters.
      </p>
      <form class="card row" onSubmit={save}>
        <div class="field">
          <label for="byok-provider">Provider</label>
          <select id="byok-provider" name="provider" required>
            {data?.providers.map((p) => (
              <option value={p}>{p}</option>
            ))}
          </select>
        </div>
        <label>
          Key
          <input name="key" type="password" autocomplete="off" required />
        </label>
        <button type="submit">Save</button>
        <ErrorLine error={formError} />
      </form>
      <ErrorLine error={error} />
      {data && data.keys.length === 0 && <Empty>No BYOK keys: requests are served with the gateway's keys and charged to the balance.</Empty>}
      {data && data.keys.length > 0 && (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Provider</th>
                <th>Key</th>
                <th>Updated</th>
                <th>
                  <span class="sr">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.keys.map((k) => (
                <tr>
                  <td data-label="Provider">{k.provider}</td>
                  <td data-label="Key">
                    <code>{k.masked}</code>
                  </td>
                  <td data-label="Updated">{date(k.updated_at)}</td>
                  <td>
                    <button type="button" class="danger" onClick={() => remove(k.provider)}>
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

/**
 * Keys: create (name, optional budget, period, expiry and rpm), the new key shown once with Copy,
 * the list (masked, state, budget, created, last used, expires), Edit (key-edit.tsx) and Revoke
 * behind a confirmation dialog.
 */
import { useState } from "preact/hooks";
import { api, withAccount, type KeyBudget, type KeyView as BaseKeyView } from "../api.js";
import { ConfirmDialog } from "../confirm.js";
import { date, Empty, ErrorLine, useLoad } from "../ui.js";
import { EditDialog } from "./key-edit.js";
import { KeyLimitFields, limitsOf } from "./key-fields.js";

type KeyView = BaseKeyView & KeyBudget;

export function KeysPage({ account }: { account: string }) {
  const { data, error, reload } = useLoad(() => api<KeyView[]>("GET", withAccount("/keys", account)), [account]);
  const [created, setCreated] = useState<NewKeyView | null>(null);
  const [revoking, setRevoking] = useState<KeyView | null>(null);
  const [editing, setEditing] = useState<KeyView | null>(null);
  return (
    <section>
      <h2>Keys</h2>
      <CreateKeyForm account={account} onCreated={(k) => (setCreated(k), reload())} />
      {created && <NewKey created={created} onDone={() => setCreated(null)} />}
      <ErrorLine error={error} />
      {data && data.length === 0 && <Empty>No keys yet. Create one above; it is shown in full only once.</Empty>}
      {data && data.length > 0 && <KeyTable keys={data} onRevoke={setRevoking} onEdit={setEditing} />}
      {editing && <EditDialog k={editing} onClose={() => setEditing(null)} onSaved={reload} />}
      {revoking && <RevokeDialog k={revoking} onClose={() => setRevoking(null)} onRevoked={reload} />}
    </section>
  );
}

type NewKeyView = KeyView & { key: string };

function CreateKeyForm({ account, onCreated }: { account: string; onCreated: (k: NewKeyView) => void }) {
  const [error, setError] = useState<string | null>(null);
  // A new form after each key, not form.reset(): reset selects the first option that has the
  // `selected` attribute, and Preact sets only the property, so the period fell back to `day`.
  const [generation, setGeneration] = useState(0);
  const create = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const limits = limitsOf(f, false);
    // A period without a budget means nothing: sent only with one.
    const body = { name: f.get("name"), ...limits, budget_period: limits.budget ? limits.budget_period : undefined, account };
    try {
      onCreated(await api<NewKeyView>("POST", "/keys", body));
      setError(null);
      setGeneration((g) => g + 1);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="card row" key={generation} onSubmit={create}>
      <label>
        Name
        <input name="name" required maxLength={100} />
      </label>
      <KeyLimitFields />
      <button type="submit">Create key</button>
      <ErrorLine error={error} />
    </form>
  );
}

function KeyTable({ keys, onRevoke, onEdit }: { keys: KeyView[]; onRevoke: (k: KeyView) => void; onEdit: (k: KeyView) => void }) {
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Key</th>
            <th>State</th>
            <th>Budget</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Expires</th>
            <th>
              <span class="sr">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id}>
              <td data-label="Name">{k.name}</td>
              <td data-label="Key">
                <code>{k.masked}</code>
              </td>
              <td data-label="State">
                <span class={`state ${k.state}`}>{k.state}</span>
              </td>
              <td data-label="Budget">{k.budget === null ? "—" : `$${k.spent} of $${k.budget} (${k.budget_period})`}</td>
              <td data-label="Created">{date(k.created_at)}</td>
              <td data-label="Last used">{date(k.last_used_at)}</td>
              <td data-label="Expires">{date(k.expires_at)}</td>
              <td>
                {k.state === "active" && (
                  <div class="actions">
                    <button type="button" class="secondary" onClick={() => onEdit(k)}>
                      Edit
                    </button>
                    <button type="button" class="danger" onClick={() => onRevoke(k)}>
                      Revoke
                    </button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NewKey({ created, onDone }: { created: { key: string; name: string }; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(created.key).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <div class="card new-key" role="status">
      <p>
        Key <strong>{created.name}</strong> was created. Copy it now: it is shown only this once.
      </p>
      <code class="full-key">{created.key}</code>
      <div class="actions">
        <button type="button" onClick={copy}>
          Copy
        </button>
        {copied && <span class="ok">Copied</span>}
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

function RevokeDialog({ k, onClose, onRevoked }: { k: KeyView; onClose: () => void; onRevoked: () => void }) {
  return (
    <ConfirmDialog
      id="revoke-title"
      title={`Revoke key ${k.name}?`}
      action="Revoke"
      run={() => api("POST", `/keys/${encodeURIComponent(k.id)}/revoke`)}
      onDone={onRevoked}
      onClose={onClose}
    >
      <p>
        Requests with <code>{k.masked}</code> will be refused from now on. This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

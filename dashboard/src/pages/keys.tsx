/**
 * Keys: create (name, optional expiry and rpm), the new key shown once with Copy, the list
 * (masked, state, created, last used, expires) and Revoke behind a confirmation dialog.
 */
import { useRef, useState } from "preact/hooks";
import { api, withAccount, type KeyView } from "../api.js";
import { date, Empty, ErrorLine, useLoad } from "../ui.js";

export function KeysPage({ account }: { account: string }) {
  const { data, error, reload } = useLoad(() => api<KeyView[]>("GET", withAccount("/keys", account)), [account]);
  const [created, setCreated] = useState<NewKeyView | null>(null);
  const [revoking, setRevoking] = useState<KeyView | null>(null);
  return (
    <section>
      <h2>Keys</h2>
      <CreateKeyForm account={account} onCreated={(k) => (setCreated(k), reload())} />
      {created && <NewKey created={created} onDone={() => setCreated(null)} />}
      <ErrorLine error={error} />
      {data && data.length === 0 && <Empty>No keys yet. Create one above; it is shown in full only once.</Empty>}
      {data && data.length > 0 && <KeyTable keys={data} onRevoke={setRevoking} />}
      {revoking && <RevokeDialog k={revoking} onClose={() => setRevoking(null)} onRevoked={reload} />}
    </section>
  );
}

type NewKeyView = KeyView & { key: string };

function CreateKeyForm({ account, onCreated }: { account: string; onCreated: (k: NewKeyView) => void }) {
  const [error, setError] = useState<string | null>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const num = (name: string) => (f.get(name) ? Number(f.get(name)) : undefined);
    try {
      onCreated(await api<NewKeyView>("POST", "/keys", { name: f.get("name"), expires_in_days: num("days"), rpm: num("rpm"), account }));
      setError(null);
      form.reset();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="card row" onSubmit={create}>
      <label>
        Name
        <input name="name" required maxLength={100} />
      </label>
      <label>
        Expires in days
        <input name="days" type="number" min={1} max={3650} inputMode="numeric" />
      </label>
      <label>
        Requests per minute
        <input name="rpm" type="number" min={1} inputMode="numeric" />
      </label>
      <button type="submit">Create key</button>
      <ErrorLine error={error} />
    </form>
  );
}

function KeyTable({ keys, onRevoke }: { keys: KeyView[]; onRevoke: (k: KeyView) => void }) {
  return (
    <div class="scroll">
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Key</th>
            <th>State</th>
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
              <td data-label="Created">{date(k.created_at)}</td>
              <td data-label="Last used">{date(k.last_used_at)}</td>
              <td data-label="Expires">{date(k.expires_at)}</td>
              <td>
                {k.state === "active" && (
                  <button type="button" class="danger" onClick={() => onRevoke(k)}>
                    Revoke
                  </button>
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
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLDialogElement>(null);
  const open = (el: HTMLDialogElement | null) => {
    ref.current = el;
    if (el && !el.open) el.showModal();
  };
  const revoke = async () => {
    try {
      await api("POST", `/keys/${encodeURIComponent(k.id)}/revoke`);
      onRevoked();
      onClose();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <dialog ref={open} aria-labelledby="revoke-title" onClose={onClose}>
      <h3 id="revoke-title">Revoke key {k.name}?</h3>
      <p>
        Requests with <code>{k.masked}</code> will be refused from now on. This cannot be undone.
      </p>
      <ErrorLine error={error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={() => ref.current?.close()}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={revoke}>
          Revoke
        </button>
      </div>
    </dialog>
  );
}

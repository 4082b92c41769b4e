/** Edit a key: budget, period, rpm, expiry (PATCH /keys/:id, as `gateway keys update`). */
import { useRef, useState } from "preact/hooks";
import { api, type KeyBudget, type KeyView } from "../api.js";
import { ErrorLine } from "../ui.js";
import { KeyLimitFields, limitsOf } from "./key-fields.js";

export function EditDialog({ k, onClose, onSaved }: { k: KeyView & KeyBudget; onClose: () => void; onSaved: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLDialogElement>(null);
  const open = (el: HTMLDialogElement | null) => {
    ref.current = el;
    if (el && !el.open) el.showModal();
  };
  const save = async (e: Event) => {
    e.preventDefault();
    try {
      await api("PATCH", `/keys/${encodeURIComponent(k.id)}`, limitsOf(new FormData(e.currentTarget as HTMLFormElement), true));
      onSaved();
      ref.current?.close();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <dialog ref={open} aria-labelledby="edit-title" onClose={onClose}>
      <h3 id="edit-title">Edit key {k.name}</h3>
      <form class="row" onSubmit={save}>
        <KeyLimitFields budget={k.budget} period={k.budget_period} rpm={k.rpm} />
        <p class="hint">Spent this period: ${k.spent}. Leave a field empty for none; expiry is unchanged when empty.</p>
        {k.limits_by_manager && <p class="hint">An owner or admin set these limits: members may lower them, only owners and admins raise or remove them.</p>}
        <ErrorLine error={error} />
        <div class="actions">
          <button type="button" class="secondary" onClick={() => ref.current?.close()}>
            Cancel
          </button>
          <button type="submit">Save</button>
        </div>
      </form>
    </dialog>
  );
}

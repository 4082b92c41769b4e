/**
 * A confirmation dialog for what cannot be undone (Revoke a key, Remove a member): a modal
 * `<dialog>` whose confirming button carries the action's name, so nothing happens on the first
 * click (docs/dashboard.md, "Accessible names"). A refusal shows in the dialog, which stays open.
 */
import type { ComponentChildren } from "preact";
import { useRef, useState } from "preact/hooks";
import { ErrorLine } from "./ui.js";

export function ConfirmDialog(p: {
  id: string;
  title: string;
  action: string;
  children: ComponentChildren;
  run: () => Promise<unknown>;
  onDone: () => void;
  onClose: () => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const ref = useRef<HTMLDialogElement>(null);
  const open = (el: HTMLDialogElement | null) => {
    ref.current = el;
    if (el && !el.open) el.showModal();
  };
  const confirm = async () => {
    try {
      await p.run();
      p.onDone();
      p.onClose();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <dialog ref={open} aria-labelledby={p.id} onClose={p.onClose}>
      <h3 id={p.id}>{p.title}</h3>
      {p.children}
      <ErrorLine error={error} />
      <div class="actions">
        <button type="button" class="secondary" onClick={() => ref.current?.close()}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={confirm}>
          {p.action}
        </button>
      </div>
    </dialog>
  );
}

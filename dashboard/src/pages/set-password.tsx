import { useState } from "preact/hooks";
import { api, type Me } from "../api.js";
import { ErrorLine } from "../ui.js";

/** The page a sign-in link opens: choose a password, then signed in. The link works once. */
export function SetPasswordPage({ token, onDone }: { token: string; onDone: (me: Me) => void }) {
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    try {
      onDone(await api<Me>("POST", "/password", { token, password: form.get("password") }));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="card narrow" onSubmit={submit}>
      <h2>Choose a password</h2>
      <label>
        New password
        <input name="password" type="password" autocomplete="new-password" minLength={10} required />
      </label>
      <p class="hint">At least 10 characters.</p>
      <ErrorLine error={error} />
      <button type="submit">Set password</button>
    </form>
  );
}

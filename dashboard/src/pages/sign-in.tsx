import { useState } from "preact/hooks";
import { api, type Me } from "../api.js";
import { ErrorLine } from "../ui.js";

export function SignInPage({ onDone }: { onDone: (me: Me) => void }) {
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    try {
      onDone(await api<Me>("POST", "/session", { email: form.get("email"), password: form.get("password") }));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="card narrow" onSubmit={submit}>
      <h2>Sign in</h2>
      <label>
        Email
        <input name="email" type="email" autocomplete="username" required />
      </label>
      <label>
        Password
        <input name="password" type="password" autocomplete="current-password" required />
      </label>
      <ErrorLine error={error} />
      <button type="submit">Sign in</button>
      <p class="hint">
        No password yet, or forgot it? Ask the gateway's operator for a sign-in link (<code>gateway users reset</code>).
      </p>
    </form>
  );
}

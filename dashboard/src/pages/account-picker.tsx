import { api } from "../api.js";
import { useLoad } from "../ui.js";

/** Admins look at one account at a time, any account. */
export function AccountPicker({ value, onChange }: { value: string; onChange: (a: string) => void }) {
  const { data } = useLoad(() => api<Array<{ id: string }>>("GET", "/accounts"), []);
  return <Picker ids={data?.map((a) => a.id) ?? [value]} value={value} onChange={onChange} />;
}

/** A member of several accounts switches between their memberships. */
export function Picker({ ids, value, onChange }: { ids: string[]; value: string; onChange: (a: string) => void }) {
  return (
    <span class="inline">
      <label for="viewing-account">Viewing account</label>
      <select id="viewing-account" value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
        {(ids.includes(value) ? ids : [value, ...ids]).map((id) => (
          <option value={id}>{id}</option>
        ))}
      </select>
    </span>
  );
}

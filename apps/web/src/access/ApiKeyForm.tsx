/** Asks for an API key when the server requires one; the key is kept for this browser session only. */
import { type FormEvent, useId, useState } from "react";
import { useOrgsim } from "../api/OrgsimProvider";

export function ApiKeyForm() {
  const { hasKey, setApiKey } = useOrgsim();
  const [value, setValue] = useState("");
  const id = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (value.trim()) setApiKey(value.trim());
    setValue("");
  };
  return (
    <section className="panel api-key" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>API key required</h2>
      <p>
        {hasKey
          ? "The server refused the API key this session holds. Enter another one."
          : "This orgsim server requires an API key. It is kept in this browser tab's session only."}
      </p>
      <form onSubmit={submit} className="row">
        <label htmlFor={`${id}-key`}>API key</label>
        <input id={`${id}-key`} type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} required />
        <button type="submit">Use this key</button>
      </form>
    </section>
  );
}

/** Lets the user drop the key this session holds. */
export function ForgetKeyButton() {
  const { hasKey, setApiKey } = useOrgsim();
  if (!hasKey) return null;
  return (
    <button type="button" className="link-button" onClick={() => setApiKey(null)}>
      Forget API key
    </button>
  );
}

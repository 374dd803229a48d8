/** A new collection: a name, and optionally the one type of item it will hold (otherwise its first item fixes it). */
import { ENTITY_TYPES } from "@orgsim/core/browser";
import { type FormEvent, useId, useState } from "react";
import { type ShownError, shownErrorOf } from "../api/errors";
import { useOrgsim } from "../api/OrgsimProvider";
import type { Collection, EntityType } from "../api/types";
import { labelOf } from "../filters/filter-form";
import { ErrorNotice } from "../ui/ErrorNotice";

export function CreateCollectionForm({ onCreated }: { onCreated(collection: Collection): void }) {
  const { client, noticeError } = useOrgsim();
  const id = useId();
  const [name, setName] = useState("");
  const [type, setType] = useState<EntityType | "">("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const created = await client.collections.create.mutate({ name: name.trim(), ...(type ? { entity_type: type } : {}) });
      setName("");
      setType("");
      setError(null);
      onCreated(created);
    } catch (caught) {
      noticeError(caught);
      setError(shownErrorOf(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="create-collection">
      <div className="field">
        <label htmlFor={`${id}-name`}>New collection name</label>
        <input id={`${id}-name`} value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-type`}>Holds</label>
        <select id={`${id}-type`} value={type} onChange={(e) => setType(e.target.value as EntityType | "")}>
          <option value="">Whatever its first item is</option>
          {ENTITY_TYPES.map((t) => (
            <option key={t} value={t}>
              {labelOf(t)} items
            </option>
          ))}
        </select>
      </div>
      <button type="submit" disabled={busy}>
        Create collection
      </button>
      {error && <ErrorNotice error={error} title="Could not create the collection" />}
    </form>
  );
}

/** One saved item: its notes and tags, editable in place, and a delete button. */
import { type FormEvent, useId, useState } from "react";
import { type ShownError, shownErrorOf } from "../api/errors";
import { useOrgsim } from "../api/OrgsimProvider";
import type { CollectionItem } from "../api/types";
import { ErrorNotice } from "../ui/ErrorNotice";

/** Tags as typed: separated by commas, blanks dropped. */
const tagsOf = (text: string) =>
  text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);

export function ItemEditor({ item, onChanged }: { item: CollectionItem; onChanged(): void }) {
  const { client, noticeError } = useOrgsim();
  const id = useId();
  const [editing, setEditing] = useState(false);
  const [notes, setNotes] = useState(item.notes ?? "");
  const [tags, setTags] = useState(item.tags.join(", "));
  const [error, setError] = useState<ShownError | null>(null);
  const name = typeof item.entity?.name === "string" ? item.entity.name : `${item.entity_type} ${item.entity_id}`;

  const call = async (work: () => Promise<unknown>) => {
    try {
      await work();
      setError(null);
      setEditing(false);
      onChanged();
    } catch (caught) {
      noticeError(caught);
      setError(shownErrorOf(caught));
    }
  };
  const save = (event: FormEvent) => {
    event.preventDefault();
    void call(() => client.collections.items.update.mutate({ id: item.collection_id, item_id: item.id, notes: notes.trim() || null, tags: tagsOf(tags) }));
  };

  return (
    <li className="item">
      <div className="item-head">
        <h4>{name}</h4>
        <div className="row">
          <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing} aria-label={`Edit notes and tags of ${name}`}>
            {editing ? "Close" : "Edit"}
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => call(() => client.collections.items.delete.mutate({ id: item.collection_id, item_id: item.id }))}
            aria-label={`Remove ${name} from the collection`}
          >
            Remove
          </button>
        </div>
      </div>
      {!editing && (item.notes || item.tags.length > 0) && (
        <p className="muted">
          {item.notes}
          {item.tags.length > 0 && <span className="item-tags"> Tags: {item.tags.join(", ")}</span>}
        </p>
      )}
      {editing && (
        <form onSubmit={save} className="item-form">
          <label htmlFor={`${id}-notes`}>Notes</label>
          <textarea id={`${id}-notes`} rows={2} maxLength={10000} value={notes} onChange={(e) => setNotes(e.target.value)} />
          <label htmlFor={`${id}-tags`}>Tags (separated by commas)</label>
          <input id={`${id}-tags`} value={tags} onChange={(e) => setTags(e.target.value)} />
          <button type="submit">Save changes</button>
        </form>
      )}
      {error && <ErrorNotice error={error} />}
    </li>
  );
}

/** Collections: create one, choose the one results are saved to, and open it to edit, export or delete. */
import { useId } from "react";
import { labelOf } from "../filters/filter-form";
import { ErrorNotice } from "../ui/ErrorNotice";
import { CollectionDetail } from "./CollectionDetail";
import { CreateCollectionForm } from "./CreateCollectionForm";
import type { CollectionsState } from "./useCollections";

export function CollectionsPanel({
  collections,
  activeId,
  onActivate,
  version,
}: {
  collections: CollectionsState;
  activeId: string | null;
  onActivate(id: string | null): void;
  version: number;
}) {
  const id = useId();
  const { list, error, reload } = collections;
  const active = list?.find((c) => c.id === activeId) ?? null;
  return (
    <section className="panel collections" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Collections</h2>
      {error && <ErrorNotice error={error} title="Collections could not be loaded" />}
      {list === null && !error && <p className="loading">Loading collections…</p>}
      {list !== null && list.length === 0 && <p className="empty">No collections yet.</p>}
      {list !== null && list.length > 0 && (
        <div className="field">
          <label htmlFor={`${id}-active`}>Save results to</label>
          <select id={`${id}-active`} value={activeId ?? ""} onChange={(e) => onActivate(e.target.value || null)}>
            {list.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.item_count}
                {c.entity_type ? `, ${labelOf(c.entity_type).toLowerCase()}` : ""})
              </option>
            ))}
          </select>
        </div>
      )}
      <CreateCollectionForm
        onCreated={async (created) => {
          await reload();
          onActivate(created.id);
        }}
      />
      {active && (
        <CollectionDetail
          collection={active}
          version={version}
          onChanged={() => void reload()}
          onDeleted={async () => {
            await reload();
            onActivate(null);
          }}
        />
      )}
    </section>
  );
}

/** The open collection: its items (a page of 100 at a time), export, and deleting the collection. */
import type { ExportFormat } from "@orgsim/core/browser";
import { useCallback, useEffect, useState } from "react";
import { type ShownError, shownErrorOf } from "../api/errors";
import { useOrgsim } from "../api/OrgsimProvider";
import type { Collection, CollectionItem } from "../api/types";
import { labelOf } from "../filters/filter-form";
import { ErrorNotice } from "../ui/ErrorNotice";
import { download, exportCollection } from "./export-file";
import { ItemEditor } from "./ItemEditor";

const ITEMS_PAGE = 100;

export function CollectionDetail({
  collection,
  version,
  onChanged,
  onDeleted,
}: {
  collection: Collection;
  version: number;
  onChanged(): void;
  onDeleted(): void;
}) {
  const { client, noticeError } = useOrgsim();
  const [items, setItems] = useState<CollectionItem[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [exporting, setExporting] = useState<ExportFormat | null>(null);
  const [confirming, setConfirming] = useState(false);

  const fail = useCallback(
    (caught: unknown) => {
      noticeError(caught);
      setError(shownErrorOf(caught));
    },
    [noticeError],
  );
  const load = useCallback(
    async (cursor: string | null, previous: CollectionItem[]) => {
      try {
        const page = await client.collections.items.list.query({ id: collection.id, limit: ITEMS_PAGE, ...(cursor ? { cursor } : {}) });
        setItems([...previous, ...page.data]);
        setNext(page.meta.next_cursor);
        setError(null);
      } catch (caught) {
        fail(caught);
      }
    },
    [client, collection.id, fail],
  );
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` changes when an item was saved elsewhere (a result's Save button).
  useEffect(() => {
    void load(null, []);
  }, [load, version]);

  const changed = () => {
    void load(null, []);
    onChanged();
  };
  const exportAs = async (format: ExportFormat) => {
    setExporting(format);
    try {
      download(await exportCollection(client, collection, format));
    } catch (caught) {
      fail(caught);
    } finally {
      setExporting(null);
    }
  };
  const remove = async () => {
    try {
      await client.collections.delete.mutate({ id: collection.id });
      onDeleted();
    } catch (caught) {
      fail(caught);
    }
  };

  return (
    <section className="collection" aria-labelledby="collection-title">
      <h3 id="collection-title">{collection.name}</h3>
      <p className="muted">
        {collection.item_count} item(s) ·{" "}
        {collection.entity_type ? `holds ${labelOf(collection.entity_type).toLowerCase()} items` : "type fixed by its first item"}
      </p>
      <div className="row">
        <button type="button" onClick={() => exportAs("csv")} disabled={exporting !== null}>
          {exporting === "csv" ? "Exporting…" : "Export CSV"}
        </button>
        <button type="button" onClick={() => exportAs("ndjson")} disabled={exporting !== null}>
          {exporting === "ndjson" ? "Exporting…" : "Export NDJSON"}
        </button>
        {confirming ? (
          <>
            <button type="button" className="danger" onClick={remove}>
              Yes, delete “{collection.name}”
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete collection
          </button>
        )}
      </div>
      {error && <ErrorNotice error={error} />}
      {items === null && !error && <p className="loading">Loading items…</p>}
      {items !== null && items.length === 0 && <p className="empty">No items yet. Save results with their “Save to” button.</p>}
      {items !== null && items.length > 0 && (
        <ul className="items" aria-label={`Items of ${collection.name}`}>
          {items.map((item) => (
            <ItemEditor key={`${item.id}:${item.updated_at}`} item={item} onChanged={changed} />
          ))}
        </ul>
      )}
      {next && (
        <button type="button" onClick={() => load(next, items ?? [])}>
          Show more items
        </button>
      )}
    </section>
  );
}

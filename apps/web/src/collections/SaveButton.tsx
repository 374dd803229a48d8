/**
 * Saves a result into the chosen collection. A collection fixed to another type answers 409
 * ENTITY_TYPE_MISMATCH: shown as a plain message beside the button, not as a failure of the page.
 */
import { useState } from "react";
import { type ShownError, shownErrorOf } from "../api/errors";
import { useOrgsim } from "../api/OrgsimProvider";
import type { Collection, OrganizationResult } from "../api/types";
import { ErrorNotice } from "../ui/ErrorNotice";

export interface SaveTarget {
  collection: Collection;
  /** Called after an item was stored (counts and the open collection change). */
  onSaved(): void;
}

type Status = { kind: "idle" } | { kind: "saving" } | { kind: "saved"; name: string } | { kind: "failed"; error: ShownError; title: string };

export function SaveButton({ org, target }: { org: OrganizationResult; target: SaveTarget | null }) {
  const { client, noticeError } = useOrgsim();
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  if (!target) return <p className="muted">Create a collection to save results.</p>;
  const { collection } = target;

  const save = async () => {
    setStatus({ kind: "saving" });
    try {
      await client.collections.items.add.mutate({
        id: collection.id,
        entity_type: "organization",
        entity_id: String(org.id),
        entity: { name: org.name, domain: org.domain },
      });
      setStatus({ kind: "saved", name: collection.name });
      target.onSaved();
    } catch (error) {
      noticeError(error);
      const shown = shownErrorOf(error);
      const title =
        shown.code === "ENTITY_TYPE_MISMATCH"
          ? `“${collection.name}” holds another type of item, so an organization cannot be added to it. Choose or create a collection of organizations.`
          : `Could not save to “${collection.name}”`;
      setStatus({ kind: "failed", error: shown, title });
    }
  };

  return (
    <div className="save">
      <button type="button" onClick={save} disabled={status.kind === "saving"} aria-label={`Save to “${collection.name}”: ${org.name}`}>
        {status.kind === "saving" ? "Saving…" : `Save to “${collection.name}”`}
      </button>
      {status.kind === "saved" && (
        <p className="ok" role="status">
          Saved to “{status.name}”.
        </p>
      )}
      {status.kind === "failed" && <ErrorNotice error={status.error} title={status.title} />}
    </div>
  );
}

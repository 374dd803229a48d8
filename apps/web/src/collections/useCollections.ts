/** The caller's collections (first 100), reloaded after every change. */
import { useCallback, useEffect, useState } from "react";
import { type ShownError, shownErrorOf } from "../api/errors";
import { useOrgsim } from "../api/OrgsimProvider";
import type { Collection } from "../api/types";

export interface CollectionsState {
  list: Collection[] | null;
  error: ShownError | null;
  reload(): Promise<void>;
}

export function useCollections(): CollectionsState {
  const { client, noticeError } = useOrgsim();
  const [list, setList] = useState<Collection[] | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const reload = useCallback(async () => {
    try {
      const page = await client.collections.list.query({ limit: 100 });
      setList(page.data);
      setError(null);
    } catch (caught) {
      noticeError(caught);
      setError(shownErrorOf(caught));
    }
  }, [client, noticeError]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { list, error, reload };
}

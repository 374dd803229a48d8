/**
 * The typed client every screen talks through, and the API key it carries. The key lives in
 * sessionStorage (gone when the tab closes) and is never logged. A call refused with UNAUTHORIZED
 * marks the key as needed (or wrong), which brings up the key form (access/ApiKeyForm).
 */
import { createOrgsimClient, type OrgsimClient } from "@orgsim/client";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";
import { isUnauthorized } from "./errors";

const KEY_STORAGE = "orgsim.apiKey";

interface OrgsimContextValue {
  client: OrgsimClient;
  hasKey: boolean;
  /** True once the server refused a call for want of a (valid) key. */
  keyNeeded: boolean;
  setApiKey(key: string | null): void;
  /** Call with every caught error: an UNAUTHORIZED one asks for a key. */
  noticeError(error: unknown): void;
}

const OrgsimContext = createContext<OrgsimContextValue | null>(null);

function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY_STORAGE);
  } catch {
    return null; // storage disabled: the key lasts as long as the page
  }
}

export function OrgsimProvider({ children }: { children: ReactNode }) {
  const [apiKey, setKey] = useState<string | null>(storedKey);
  const [keyNeeded, setKeyNeeded] = useState(false);
  // The app is served by the orgsim server itself, so the server is this page's origin.
  const client = useMemo(() => createOrgsimClient({ url: window.location.origin, ...(apiKey ? { apiKey } : {}) }), [apiKey]);
  const setApiKey = useCallback((key: string | null) => {
    try {
      if (key) sessionStorage.setItem(KEY_STORAGE, key);
      else sessionStorage.removeItem(KEY_STORAGE);
    } catch {
      // storage disabled: keep it in memory only
    }
    setKey(key);
    setKeyNeeded(false);
  }, []);
  const noticeError = useCallback((error: unknown) => {
    if (isUnauthorized(error)) setKeyNeeded(true);
  }, []);
  const value = useMemo(() => ({ client, hasKey: apiKey !== null, keyNeeded, setApiKey, noticeError }), [client, apiKey, keyNeeded, setApiKey, noticeError]);
  return <OrgsimContext.Provider value={value}>{children}</OrgsimContext.Provider>;
}

export function useOrgsim(): OrgsimContextValue {
  const value = useContext(OrgsimContext);
  if (!value) throw new Error("useOrgsim outside OrgsimProvider");
  return value;
}

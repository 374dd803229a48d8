/** An API error as the user sees it: the server's message, and the request id to quote when reporting it. */
import type { ShownError } from "../api/errors";

export function ErrorNotice({ error, title = "Something went wrong" }: { error: ShownError; title?: string }) {
  return (
    <div className="notice notice-error" role="alert">
      <p className="notice-title">{title}</p>
      <p>{error.message}</p>
      {(error.code || error.requestId) && (
        <p className="notice-meta">
          {error.code && <span>Code: {error.code}</span>}
          {error.requestId && (
            <span>
              {" "}
              Request id: <code>{error.requestId}</code>
            </span>
          )}
        </p>
      )}
    </div>
  );
}

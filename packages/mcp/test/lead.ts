/** The first two sentences of a tool's description: where it must say when to use the tool and what comes back. */
export const leadOf = (tool: { description?: string }) =>
  (tool.description ?? "")
    .split(/(?<=\.) (?=[A-Z])/)
    .slice(0, 2)
    .join(" ");

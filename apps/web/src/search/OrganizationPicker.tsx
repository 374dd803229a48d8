/**
 * Type-ahead for a known organization: names as typed so far go to `organizations.find` (the
 * lookup), and the matches show as a listbox. Downshift supplies the combobox's ARIA roles and
 * keys (arrows to move, Enter to choose, Escape to close). Pinned to downshift 9.0.13: from 9.2 its
 * input dropped characters typed quickly (seen here in Chromium; downshift-js/downshift#1678).
 */
import { useCombobox } from "downshift";
import { useEffect, useId, useState } from "react";
import { useOrgsim } from "../api/OrgsimProvider";
import type { Organization } from "../api/types";
import type { OrganizationSeed } from "./search-request";

/** Wait this long after the last key before asking: one lookup per pause, not per keystroke. */
const TYPING_PAUSE_MS = 150;

export function OrganizationPicker({ label, onPick, exclude }: { label: string; onPick(seed: OrganizationSeed): void; exclude: number[] }) {
  const { client, noticeError } = useOrgsim();
  const [matches, setMatches] = useState<Organization[]>([]);
  const [status, setStatus] = useState<"idle" | "loading" | "error">("idle");
  const shown = matches.filter((o) => !exclude.includes(o.id));
  const id = useId();
  const combobox = useCombobox<Organization>({
    inputId: `${id}-input`,
    labelId: `${id}-label`,
    items: shown,
    itemToString: (item) => item?.name ?? "",
    // Nothing stays selected: a choice is handed to onPick and the box empties for the next one.
    selectedItem: null,
    onSelectedItemChange: ({ selectedItem }) => {
      if (selectedItem) onPick({ id: selectedItem.id, name: selectedItem.name });
    },
    stateReducer: (_state, { type, changes }) => {
      const chose = type === useCombobox.stateChangeTypes.ItemClick || type === useCombobox.stateChangeTypes.InputKeyDownEnter;
      return chose && changes.selectedItem ? { ...changes, inputValue: "", isOpen: false } : changes;
    },
  });
  const input = combobox.inputValue;

  useEffect(() => {
    const name = input.trim();
    if (!/[\p{L}\p{N}]/u.test(name)) {
      setMatches([]);
      return;
    }
    let live = true;
    const timer = setTimeout(() => {
      setStatus("loading");
      client.organizations.find
        .query({ name, limit: 8 })
        .then((page) => {
          if (!live) return;
          setMatches(page.data);
          setStatus("idle");
        })
        .catch((error) => {
          noticeError(error);
          if (live) setStatus("error");
        });
    }, TYPING_PAUSE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [input, client, noticeError]);
  const open = combobox.isOpen && shown.length > 0;

  return (
    <div className="combobox">
      <label {...combobox.getLabelProps()} htmlFor={`${id}-input`}>
        {label}
      </label>
      <input {...combobox.getInputProps()} placeholder="Type a name…" />
      <ul {...combobox.getMenuProps()} className={open ? "menu open" : "menu"}>
        {open &&
          shown.map((item, index) => (
            <li key={item.id} {...combobox.getItemProps({ item, index })} className={combobox.highlightedIndex === index ? "highlighted" : undefined}>
              <span className="menu-name">{item.name}</span>
              <span className="muted">{[item.domain, item.location.headquarters?.country_code].filter(Boolean).join(" · ")}</span>
            </li>
          ))}
      </ul>
      <p className="sr-only" aria-live="polite">
        {status === "loading"
          ? "Looking up names…"
          : status === "error"
            ? "The lookup failed"
            : input.trim() && combobox.isOpen
              ? `${shown.length} matches`
              : ""}
      </p>
      {status === "error" && <p className="field-error">The name lookup failed; try again.</p>}
    </div>
  );
}

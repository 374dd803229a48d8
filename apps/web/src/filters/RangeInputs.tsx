/** A pair of bounds (from, to) of one filter, each a labelled input. */
import { useId } from "react";

export function RangeInputs({
  legend,
  type,
  min,
  max,
  onChange,
  step,
}: {
  legend: string;
  type: "number" | "date";
  min: string;
  max: string;
  onChange(bounds: { min: string; max: string }): void;
  step?: number;
}) {
  const id = useId();
  return (
    <fieldset className="range">
      <legend>{legend}</legend>
      <label htmlFor={`${id}-min`}>From</label>
      <input
        id={`${id}-min`}
        type={type}
        inputMode={type === "number" ? "numeric" : undefined}
        step={step}
        value={min}
        onChange={(e) => onChange({ min: e.target.value, max })}
      />
      <label htmlFor={`${id}-max`}>To</label>
      <input
        id={`${id}-max`}
        type={type}
        inputMode={type === "number" ? "numeric" : undefined}
        step={step}
        value={max}
        onChange={(e) => onChange({ min, max: e.target.value })}
      />
    </fieldset>
  );
}

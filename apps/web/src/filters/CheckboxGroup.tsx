/** A short, fixed list of choices (employee ranges, funding stages) as checkboxes in a fieldset. */
export function CheckboxGroup<T extends string>({
  legend,
  values,
  selected,
  onChange,
  label = (value) => value,
}: {
  legend: string;
  values: readonly T[];
  selected: T[];
  onChange(values: T[]): void;
  label?: (value: T) => string;
}) {
  return (
    <fieldset className="checks">
      <legend>{legend}</legend>
      {values.map((value) => (
        <label key={value} className="check">
          <input
            type="checkbox"
            checked={selected.includes(value)}
            onChange={(e) => onChange(e.target.checked ? [...selected, value] : selected.filter((v) => v !== value))}
          />
          {label(value)}
        </label>
      ))}
    </fieldset>
  );
}

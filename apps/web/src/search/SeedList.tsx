/** The organizations chosen as examples (or counter-examples), each removable. */
import type { OrganizationSeed } from "./search-request";

export function SeedList({ label, seeds, onRemove }: { label: string; seeds: OrganizationSeed[]; onRemove(id: number): void }) {
  if (seeds.length === 0) return null;
  return (
    <ul className="chips" aria-label={label}>
      {seeds.map((seed) => (
        <li key={seed.id}>
          <button type="button" className="chip" onClick={() => onRemove(seed.id)} aria-label={`Remove ${seed.name} from ${label.toLowerCase()}`}>
            {seed.name} <span aria-hidden="true">×</span>
          </button>
        </li>
      ))}
    </ul>
  );
}

/** One result: who it is, how similar, why it is there, and what to do with it. */
import type { OrganizationResult } from "../api/types";
import { labelOf } from "../filters/filter-form";
import { SaveButton, type SaveTarget } from "../collections/SaveButton";
import { cosineText, factsOf, placeOf, scoreText } from "./format";

export function ResultCard({ org, onMoreLikeThis, target }: { org: OrganizationResult; onMoreLikeThis(): void; target: SaveTarget | null }) {
  const headingId = `result-${org.id}`;
  const place = placeOf(org);
  const explanation = org.similarity.explanation;
  return (
    <article className="result" aria-labelledby={headingId}>
      <div className="result-head">
        <h3 id={headingId}>
          <span className="rank">{org.similarity.rank}.</span> {org.name}
        </h3>
        <p className="score" title="Score orders the results; similarity is the cosine of the two vectors">
          <span>
            Score <strong>{scoreText(org.similarity.score)}</strong>
          </span>
          <span>
            Similarity <strong>{cosineText(org.similarity.cosine_similarity)}</strong>
          </span>
        </p>
      </div>
      <p className="muted">
        {[org.domain, place].filter(Boolean).join(" · ")}
        {factsOf(org).length > 0 && <> · {factsOf(org).join(" · ")}</>}
      </p>
      {org.description && <p className="description">{org.description}</p>}
      {explanation?.summary && (
        <p className="why">
          <span className="why-label">Why:</span> {explanation.summary}
        </p>
      )}
      {org.categories.length > 0 && (
        <ul className="tags" aria-label="Categories">
          {org.categories.map((slug) => (
            <li key={slug}>{labelOf(slug)}</li>
          ))}
        </ul>
      )}
      <div className="row actions">
        <button type="button" onClick={onMoreLikeThis} aria-label={`More like this: ${org.name}`}>
          More like this
        </button>
        <SaveButton org={org} target={target} />
      </div>
    </article>
  );
}

/** Vectors of different models are not comparable: refuse to mix them. */
import { OrgsimError } from "../errors";
import type { Embedder } from "../ports/embedder";
import type { OrganizationStore } from "../ports/organization-store";

export async function assertSameModel(store: OrganizationStore, embedder: Embedder): Promise<void> {
  const stored = await store.vectorModel();
  if (!stored) return;
  if (stored.modelId !== embedder.modelId || stored.dimension !== embedder.dimension) {
    throw new OrgsimError(
      "CONFLICT",
      `The ${store.backend} store holds vectors of model ${stored.modelId} (${stored.dimension}-d) but this server embeds with ${embedder.modelId} (${embedder.dimension}-d); ` +
        "start the server with the store's model (ORGSIM_MODEL) or re-import the organizations into an empty store",
      { stored_model: stored.modelId, stored_dimension: stored.dimension, server_model: embedder.modelId, server_dimension: embedder.dimension },
    );
  }
}

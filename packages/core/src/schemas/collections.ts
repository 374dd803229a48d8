/** Collections and their items; an item's `entity` snapshot is validated by its type. */
import { z } from "zod";
import { ENTITY_TYPES, FUNDING_STAGES } from "../domain/metrics";
import { intParam, isoDate } from "./params";

export const EntityTypeSchema = z.enum(ENTITY_TYPES).meta({ id: "EntityType" });

const opt = (s: z.ZodType) => s.nullish();
const orgRef = () => opt(z.number().int().positive());

/** Snapshot shapes, one per entity type (all fields optional; unknown fields refused). */
export const ENTITY_SNAPSHOTS = {
  organization: z.strictObject({ name: opt(z.string().max(200)), domain: opt(z.string().max(253)) }),
  person: z.strictObject({
    full_name: opt(z.string().max(200)),
    title: opt(z.string().max(200)),
    email: opt(z.email()),
    linkedin_url: opt(z.url()),
    organization_id: orgRef(),
  }),
  address: z.strictObject({
    address_line: opt(z.string().max(500)),
    city: opt(z.string().max(200)),
    subdivision_code: opt(z.string().max(10)),
    postal_code: opt(z.string().max(32)),
    country_code: opt(z.string().length(2)),
  }),
  product: z.strictObject({
    name: opt(z.string().max(200)),
    description: opt(z.string().max(5000)),
    url: opt(z.url()),
    category: opt(z.string().max(100)),
    organization_id: orgRef(),
  }),
  funding_round: z.strictObject({
    organization_id: orgRef(),
    stage: opt(z.enum(FUNDING_STAGES)),
    announced_on: opt(isoDate()),
    amount_usd: opt(z.number().nonnegative()),
    investors: opt(z.array(z.string().max(200)).max(100)),
  }),
} as const;

const entityId = z.string().trim().min(1).max(200).meta({ description: "The entity's identifier (for organizations, the organization id)" });
const notes = z.string().max(10_000);
const tags = z.array(z.string().trim().min(1).max(64)).max(50);
const name = z.string().trim().min(1).max(200);
const description = z.string().max(2000);

export const Collection = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    entity_type: EntityTypeSchema.nullable(),
    item_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Collection" });
export type Collection = z.infer<typeof Collection>;

export const CollectionItem = z
  .object({
    id: z.string(),
    collection_id: z.string(),
    entity_type: EntityTypeSchema,
    entity_id: z.string(),
    entity: z.record(z.string(), z.unknown()).nullable(),
    notes: z.string().nullable(),
    tags: z.array(z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "CollectionItem" });
export type CollectionItem = z.infer<typeof CollectionItem>;

/** One item to add; `entity` is checked against the snapshot shape of `entity_type`. */
export const NewItem = z
  .strictObject({
    entity_type: EntityTypeSchema,
    entity_id: entityId,
    entity: z.record(z.string(), z.unknown()).nullish(),
    notes: notes.nullish(),
    tags: tags.optional(),
  })
  .superRefine((item, ctx) => {
    if (item.entity_type === "organization" && !/^[1-9]\d{0,15}$/.test(item.entity_id)) {
      ctx.addIssue({ code: "custom", path: ["entity_id"], message: "an organization's entity_id is its positive integer id", input: item.entity_id });
    }
    if (item.entity == null) return;
    const parsed = ENTITY_SNAPSHOTS[item.entity_type].safeParse(item.entity);
    for (const issue of parsed.error?.issues ?? []) {
      ctx.addIssue({
        code: "custom",
        path: ["entity", ...issue.path.map(String)],
        message: `${issue.message} (for a ${item.entity_type})`,
        input: item.entity,
      });
    }
  })
  .meta({ id: "NewItem" });
export type NewItem = z.infer<typeof NewItem>;

const collectionId = z.string().regex(/^col_[A-Za-z0-9_-]{1,64}$/, "a collection id looks like col_…");
/** A collection's id, as every input naming a collection takes it. */
export const CollectionId = collectionId;
const itemId = z.string().regex(/^itm_[A-Za-z0-9_-]{1,64}$/, "an item id looks like itm_…");
const pageLimit = intParam(z.number().int().min(1).max(100)).default(20);
const cursor = z.string().max(2000).optional();

export const CreateCollectionInput = z.strictObject({
  name,
  description: description.nullish(),
  entity_type: EntityTypeSchema.nullish().meta({ description: "Fix the type now; otherwise the first item fixes it" }),
});
export const ListCollectionsInput = z.strictObject({ limit: pageLimit, cursor });
export const CollectionRef = z.strictObject({ id: collectionId });
export const UpdateCollectionInput = z.strictObject({ id: collectionId, name: name.optional(), description: description.nullish() });
export const AddItemInput = NewItem.safeExtend({ id: collectionId }).meta({ id: "AddItemInput" });
export const BulkAddItemsInput = z.strictObject({ id: collectionId, items: z.array(NewItem).min(1).max(1000) });
export const ListItemsInput = z.strictObject({ id: collectionId, limit: pageLimit, cursor });
export const ItemRef = z.strictObject({ id: collectionId, item_id: itemId });
export const UpdateItemInput = z.strictObject({
  id: collectionId,
  item_id: itemId,
  notes: notes.nullish(),
  tags: tags.optional(),
  entity: z.record(z.string(), z.unknown()).nullish(),
});

export const CollectionPage = z.object({ data: z.array(Collection), meta: z.object({ next_cursor: z.string().nullable() }) }).meta({ id: "CollectionPage" });
export const ItemPage = z.object({ data: z.array(CollectionItem), meta: z.object({ next_cursor: z.string().nullable() }) }).meta({ id: "ItemPage" });
export const BulkAddResult = z
  .object({ data: z.array(CollectionItem), meta: z.object({ created: z.number().int(), existing: z.number().int() }) })
  .meta({ id: "BulkAddResult" });

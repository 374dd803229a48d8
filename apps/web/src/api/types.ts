/** The router's own input and output types, inferred end to end: the app never restates a schema. */
import type { AppRouter } from "@orgsim/client";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";

export type Inputs = inferRouterInputs<AppRouter>;
export type Outputs = inferRouterOutputs<AppRouter>;

export type SearchResponse = Outputs["search"]["similarToDescription"];
export type OrganizationResult = SearchResponse["data"][number];
export type Organization = Outputs["organizations"]["find"]["data"][number];
export type Seed = Inputs["search"]["similarToSeeds"]["like"][number];
/** The filters and options every search takes (the description search's input without its text). */
export type SearchFilters = Omit<Inputs["search"]["similarToDescription"], "description" | "cursor" | "limit" | "explain">;
export type Category = Outputs["categories"]["list"]["data"][number];
export type Collection = Outputs["collections"]["get"];
export type CollectionItem = Outputs["collections"]["items"]["get"];
export type ExportedItem = Outputs["collections"]["export"]["data"][number];
export type EntityType = NonNullable<Inputs["collections"]["create"]["entity_type"]>;

/** GET /organizations: finding organizations by name (type-ahead) or domain. */
import { z } from "zod";
import { domainKey, nameWords } from "../domain/lookup-keys";
import { Organization } from "./organization";
import { intParam } from "./params";

/** Results a lookup pages through at most. */
export const MAX_LOOKUP_DEPTH = 1000;

export const FindOrganizationsInput = z
  .strictObject({
    name: z
      .string()
      .max(200)
      .refine((name) => nameWords(name).length > 0, { message: "name must hold at least one letter or digit" })
      .optional()
      .meta({
        description:
          "Words of the name, the last (or any) one possibly cut short, for type-ahead: best first, names that start with it, then names holding every word, then names where every word starts a word",
        example: "strip",
      }),
    domain: z
      .string()
      .max(2048)
      .refine((domain) => domainKey(domain) !== null, { message: "domain must name a host, such as stripe.com or https://www.stripe.com/pricing" })
      .optional()
      .meta({ description: "Exact match on the domain, whatever scheme, www. or path is written", example: "stripe.com" }),
    limit: intParam(z.number().int().min(1).max(100)).default(10),
    cursor: z.string().max(2000).optional().meta({ description: "next_cursor of the previous page" }),
  })
  .superRefine((input, ctx) => {
    if (input.name === undefined && input.domain === undefined) {
      ctx.addIssue({ code: "custom", path: ["name"], message: "give name, domain or both", input });
    }
  });
export type FindOrganizationsInput = z.output<typeof FindOrganizationsInput>;

export const OrganizationPage = z
  .object({
    data: z.array(Organization),
    meta: z.object({ limit: z.number().int(), next_cursor: z.string().nullable() }),
  })
  .meta({ id: "OrganizationPage" });
export type OrganizationPage = z.infer<typeof OrganizationPage>;

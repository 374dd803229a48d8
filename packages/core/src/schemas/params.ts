/**
 * Parameter shapes shared by every input. They accept what each transport
 * sends: tRPC clients send numbers, booleans and arrays; REST query strings
 * send strings, repeated keys (`x=a&x=b`) or comma lists (`x=a,b`).
 */
import { z } from "zod";

/** A list that also accepts one value or a comma-separated string. */
export const listParam = <T extends z.ZodType>(item: T, max?: number) =>
  z.preprocess(
    (value) => {
      const values = Array.isArray(value) ? value : value === undefined ? undefined : [value];
      return values?.flatMap((v) =>
        typeof v === "string"
          ? v
              .split(",")
              .map((s) => s.trim())
              .filter(Boolean)
          : [v],
      );
    },
    max === undefined ? z.array(item) : z.array(item).max(max),
  );

/** A boolean that also accepts "true"/"false" (and "1"/"0"), never treating "false" as true. */
export const boolParam = () =>
  z.preprocess((value) => {
    if (value === "true" || value === "1") return true;
    if (value === "false" || value === "0") return false;
    return value;
  }, z.boolean());

/** An integer that also accepts its decimal string. */
export const intParam = (inner: z.ZodNumber = z.number().int()) =>
  z.preprocess((value) => (typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : value), inner);

/** A number that also accepts its decimal string. */
export const numberParam = (inner: z.ZodNumber = z.number()) =>
  z.preprocess((value) => (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value)) ? Number(value) : value), inner);

export const isoDate = () => z.iso.date().meta({ description: "ISO 8601 date, YYYY-MM-DD", example: "2023-05-02" });

export const organizationId = () =>
  intParam(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).meta({ description: "Organization id (positive integer)", example: 4242 });

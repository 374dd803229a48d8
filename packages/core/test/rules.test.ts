import { describe, expect, it } from "vitest";
import { assertItemTypes, OrgsimError } from "../src";

describe("the one-type rule", () => {
  it("lets the first item fix an untyped collection's type", () => {
    expect(assertItemTypes(null, ["person", "person"])).toBe("person");
  });

  it("accepts items of the collection's type", () => {
    expect(assertItemTypes("address", ["address"])).toBe("address");
  });

  it("refuses another type, naming both and the failing indexes", () => {
    const error = (() => {
      try {
        assertItemTypes("organization", ["organization", "person", "organization", "product"]);
      } catch (e) {
        return e as OrgsimError;
      }
    })();
    expect(error).toBeInstanceOf(OrgsimError);
    expect(error?.code).toBe("ENTITY_TYPE_MISMATCH");
    expect(error?.status).toBe(409);
    expect(error?.message).toContain("organization");
    expect(error?.message).toContain("person");
    expect(error?.details).toMatchObject({ collection_entity_type: "organization", item_entity_type: "person", failing_indexes: [1, 3] });
  });

  it("refuses a mixed first batch: the batch's first item sets the expected type", () => {
    expect(() => assertItemTypes(null, ["person", "address"])).toThrow(/first is person, item 1 is address/);
  });
});

/**
 * The `customerBaseFigures` port method on a real store: per existing id, the two cosines exactly as
 * similarities() gives them (customer-base search must rank as it did from those) and whether the
 * customer text is stated, kept in step with writes.
 */
import { hasExplicitCustomerText, type OrganizationRecord, type VectorModel } from "@orgsim/core";
import { afterEach, describe, expect, it } from "vitest";
import { dot } from "../expected";
import { randomRecords, rng, unitVector } from "../synthetic";
import type { OpenedOrganizationStore, OrganizationStoreContractOptions } from "./organization-store";

/** Digits to which a figure equals the float64 cosine (an engine's float32 cosine: within 1e-6). */
const COSINE_DIGITS = 6;

/** Random records, one in three with a customer vector but no stated text (extracted), one with blank text beside a vector. */
function mixedRecords(dimension: number): OrganizationRecord[] {
  const random = rng(17);
  return randomRecords(60, dimension, 17).map((r, i) => {
    if (i === 5) return { ...r, organization: { ...r.organization, customer_description: "   " }, customerVector: unitVector(dimension, random) };
    if (i % 3 !== 0) return r;
    return { ...r, organization: { ...r.organization, customer_description: null }, customerVector: unitVector(dimension, random) };
  });
}

export function describeCustomerBaseFiguresContract(options: OrganizationStoreContractOptions, model: VectorModel): void {
  describe("customer-base figures", () => {
    let opened: OpenedOrganizationStore | undefined;
    afterEach(async () => {
      await opened?.cleanup();
      opened = undefined;
    });

    it("gives each existing id both cosines as similarities() does, and whether its customer text is stated", async () => {
      opened = await options.open();
      const { store } = opened;
      const records = mixedRecords(model.dimension);
      await store.upsert(records, model);
      const query = unitVector(model.dimension, rng(5));
      const ids = records.map((r) => r.organization.id);
      const [figures, customer, profile] = await Promise.all([
        store.customerBaseFigures(query, [...ids, 99_999, 1]),
        store.similarities(query, "customer", ids),
        store.similarities(query, "profile", ids),
      ]);
      expect([...figures.keys()].sort((a, b) => a - b)).toEqual(ids);
      const kinds = { stated: 0, extracted: 0, none: 0 };
      for (const { organization, profileVector, customerVector } of records) {
        const f = figures.get(organization.id);
        expect(f?.profile).toBe(profile.get(organization.id));
        expect(f?.profile).toBeCloseTo(dot(query, profileVector), COSINE_DIGITS);
        expect(f?.customer).toBe(customer.get(organization.id) ?? null);
        if (customerVector) expect(f?.customer).toBeCloseTo(dot(query, customerVector), COSINE_DIGITS);
        expect(f?.customerStated).toBe(hasExplicitCustomerText(organization));
        kinds[!customerVector ? "none" : f?.customerStated ? "stated" : "extracted"]++;
      }
      // Every case is there: stated, extracted (blank text included), no customer vector.
      expect(Object.values(kinds).every((n) => n >= 5)).toBe(true);
      expect(figures.get(6)?.customerStated).toBe(false);
      expect(await store.customerBaseFigures(query, [])).toEqual(new Map());
    });

    it("follows writes: a replaced organization's stated text and vectors, a deleted one gone", async () => {
      opened = await options.open();
      const { store } = opened;
      const records = mixedRecords(model.dimension);
      await store.upsert(records, model);
      const stated = records.find((r) => r.customerVector && hasExplicitCustomerText(r.organization)) as OrganizationRecord;
      const extracted = records.find((r) => r.customerVector && !hasExplicitCustomerText(r.organization)) as OrganizationRecord;
      const [a, b] = [stated.organization.id, extracted.organization.id];
      await store.upsert(
        [
          { ...stated, organization: { ...stated.organization, customer_description: null }, customerVector: null },
          { ...extracted, organization: { ...extracted.organization, customer_description: "Hospitals" } },
        ],
        model,
      );
      const query = unitVector(model.dimension, rng(6));
      const figures = await store.customerBaseFigures(query, [a, b]);
      expect(figures.get(a)).toMatchObject({ customer: null, customerStated: false });
      expect(figures.get(b)?.customerStated).toBe(true);
      await store.delete(b);
      expect([...(await store.customerBaseFigures(query, [a, b])).keys()]).toEqual([a]);
    });
  });
}

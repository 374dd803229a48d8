/** Checks on the data tables the generator writes from. */
import { CATEGORIES, customerSentences, isSubdivisionCode, normalizeCountry, worldRegionOf } from "@orgsim/core";
import { describe, expect, it } from "vitest";
import { CATEGORY_CONTENT } from "../src/data/categories";
import {
  CAPABILITY_TEMPLATES,
  CUSTOMER_DESCRIPTION_TEMPLATES,
  CUSTOMER_SENTENCE_TEMPLATES,
  FACT_TEMPLATES,
  INTRO_TEMPLATES,
  SECONDARY_TEMPLATES,
} from "../src/data/phrases";
import { CITIES, COUNTRY_TEXT } from "../src/data/places";
import { fill } from "../src/generator/text";

const contents = Object.entries(CATEGORY_CONTENT);

/** Neutral values for template slots, so only the template's own words are judged. */
const NEUTRAL: Record<string, string> = {
  name: "Brivora",
  a_label: "a robotics",
  kind: "company",
  offering: "builds robots",
  noun: "robot",
  cap1: "moves boxes",
  cap2: "charges itself",
  city: "Lyon",
  year: "2015",
  offices: "Austin and Lisbon",
  team: "40",
  audience: "plant managers",
  audience2: "machine builders",
  goal: "cut downtime",
  market: "in France",
};

describe("category content", () => {
  it("covers exactly the taxonomy", () => {
    expect(Object.keys(CATEGORY_CONTENT).sort()).toEqual(CATEGORIES.map((c) => c.slug).sort());
  });

  it.each(contents)("%s: products, segments and related categories are well-formed", (_slug, content) => {
    expect(content.weight).toBeGreaterThan(0);
    expect(content.nameWords.length).toBeGreaterThanOrEqual(3);
    expect(content.products.length).toBeGreaterThanOrEqual(4);
    expect(content.differentiators.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(content.segments).length).toBeGreaterThanOrEqual(4);
    const used = new Set<string>();
    for (const product of content.products) {
      expect(product.offering).toMatch(/^[a-z]+s\b/); // third-person verb: "builds …"
      expect(product.capabilities.length).toBeGreaterThanOrEqual(2);
      expect(product.fits.length).toBeGreaterThanOrEqual(1);
      for (const key of product.fits) {
        expect(content.segments, `${product.offering} fits ${key}`).toHaveProperty(key);
        used.add(key);
      }
    }
    expect([...used].sort(), "every segment is some product's").toEqual(Object.keys(content.segments).sort());
    for (const segment of Object.values(content.segments)) {
      expect(segment.goals.length).toBeGreaterThanOrEqual(1);
      expect(segment.audience).not.toMatch(/\bwho\b|\.$/);
    }
    for (const slug of content.related) expect(CATEGORY_CONTENT).toHaveProperty(slug);
  });

  it.each(contents)("%s: only segments speak of customers", (_slug, content) => {
    const neutral = [
      content.label,
      ...content.nameWords,
      ...content.differentiators,
      ...content.products.flatMap((p) => [`Brivora ${p.offering}.`, `Its ${p.noun} does it.`, ...p.capabilities.map((c) => `It ${c}.`)]),
    ];
    for (const text of neutral) expect(customerSentences(text), text).toEqual([]);
  });
});

describe("sentence templates", () => {
  it("never speak of customers outside the customer templates", () => {
    const templates = [...INTRO_TEMPLATES, ...CAPABILITY_TEMPLATES, ...SECONDARY_TEMPLATES, ...Object.values(FACT_TEMPLATES)];
    for (const template of templates) expect(customerSentences(fill(template, NEUTRAL)), template).toEqual([]);
  });

  it("customer sentences are recognized as such by core's cues", () => {
    for (const template of CUSTOMER_SENTENCE_TEMPLATES) expect(customerSentences(fill(template, NEUTRAL)), template).toHaveLength(1);
  });

  it("fill rejects unknown slots", () => {
    expect(() => fill("{nope}", NEUTRAL)).toThrow(/nope/);
    for (const template of CUSTOMER_DESCRIPTION_TEMPLATES) expect(fill(template, NEUTRAL)).not.toContain("{");
  });
});

describe("places", () => {
  it("uses valid countries and ISO 3166-2 codes of the same country", () => {
    for (const city of CITIES) {
      expect(normalizeCountry(city.country), city.city).toBe(city.country);
      expect(worldRegionOf(city.country), city.city).toBeTruthy();
      if (city.subdivision) {
        expect(isSubdivisionCode(city.subdivision), `${city.city} ${city.subdivision}`).toBe(true);
        expect(city.subdivision.startsWith(`${city.country}-`), city.city).toBe(true);
      }
      expect(city.weight).toBeGreaterThan(0);
      for (const postal of city.postal ?? []) expect(postal.length).toBeLessThanOrEqual(32);
    }
  });

  it("names every country in prose and lists each city once", () => {
    for (const city of CITIES) expect(COUNTRY_TEXT, city.country).toHaveProperty(city.country);
    const keys = CITIES.map((c) => `${c.city}/${c.country}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

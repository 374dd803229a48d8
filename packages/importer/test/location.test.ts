import { describe, expect, it } from "vitest";
import { parseLocationText, toCountryCode, toSubdivisionCode } from "../src/index";

describe("countries", () => {
  it("normalizes English names, alpha-3 and alpha-2 to alpha-2", () => {
    expect(toCountryCode("United States of America")).toBe("US");
    expect(toCountryCode("USA")).toBe("US");
    expect(toCountryCode("United Kingdom")).toBe("GB");
    expect(toCountryCode("DEU")).toBe("DE");
    expect(toCountryCode("fr")).toBe("FR");
    expect(toCountryCode("South Korea")).toBe("KR");
    expect(toCountryCode("Macau")).toBe("MO");
    expect(toCountryCode("British Virgin Islands")).toBe("VG");
    expect(toCountryCode("Atlantis")).toBeNull();
  });
});

describe("subdivisions", () => {
  it("reads full codes, US states and Canadian provinces, and short codes within a country", () => {
    expect(toSubdivisionCode("us-ca", null)).toBe("US-CA");
    expect(toSubdivisionCode("TX", null)).toBe("US-TX");
    expect(toSubdivisionCode("Ontario", null)).toBe("CA-ON");
    expect(toSubdivisionCode("NSW", "AU")).toBe("AU-NSW");
    expect(toSubdivisionCode("BY", "DE")).toBe("DE-BY");
    expect(toSubdivisionCode("CA", "CN")).toBeNull(); // not a Chinese subdivision
    expect(toSubdivisionCode("US-CA", "FR")).toBeNull(); // another country's
    expect(toSubdivisionCode("Nowhere", null)).toBeNull();
  });
});

describe("location_text", () => {
  it.each([
    ["San Francisco, CA, USA", { city: "San Francisco", subdivision_code: "US-CA", country_code: "US" }],
    ["Austin, Texas, United States of America", { city: "Austin", subdivision_code: "US-TX", country_code: "US" }],
    ["Toronto, ON, Canada", { city: "Toronto", subdivision_code: "CA-ON", country_code: "CA" }],
    ["London, England, United Kingdom", { city: "London", subdivision_code: "GB-ENG", country_code: "GB" }],
    ["Bengaluru, KA, India", { city: "Bengaluru", country_code: "IN" }],
    ["MH, India", { country_code: "IN" }],
    ["NY, USA", { subdivision_code: "US-NY", country_code: "US" }],
    ["Singapore, Singapore", { city: "Singapore", country_code: "SG" }],
    ["Berlin, Germany", { city: "Berlin", country_code: "DE" }],
    ["Portland, OR", { city: "Portland", subdivision_code: "US-OR", country_code: "US" }],
    ["Germany", { country_code: "DE" }],
    ["Reykjavík", { city: "Reykjavík" }],
    ["Suite 4, 100 Main St, Boston, MA, USA", { address_line: "Suite 4, 100 Main St", city: "Boston", subdivision_code: "US-MA", country_code: "US" }],
  ])("%s", (text, place) => {
    expect(parseLocationText(text)).toEqual(place);
  });

  it('gives null for "Remote" and empty text', () => {
    expect(parseLocationText("Remote")).toBeNull();
    expect(parseLocationText(" , ")).toBeNull();
  });
});

import { describe, expect, it } from "vitest";

/** A small seeded generator in [0, 1), for generated cases that repeat run after run. */
const rng = (seed: number) => () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};
import {
  distinctiveTerms,
  domainKey,
  nameKey,
  nameWords,
  lexicalTerms,
  LEXICAL_STOP_WORDS,
  standardTokens,
  termFrequency,
  customerSentences,
  customerTextOf,
  splitSentences,
  decodeCursor,
  employeeRangeOf,
  encodeCursor,
  fingerprint,
  normalizeCountry,
  normalizeOrganization,
  OrgsimError,
  regionsOfCountry,
  setCursorSecret,
  SimilarToDescriptionInput,
  toStoreFilter,
  worldRegionOf,
} from "../src";

describe("geography", () => {
  it("normalizes alpha-2, alpha-3 and (for imports) names", () => {
    expect(normalizeCountry("fr")).toBe("FR");
    expect(normalizeCountry("DEU")).toBe("DE");
    expect(normalizeCountry("United States of America", { names: true })).toBe("US");
    expect(normalizeCountry("Germany")).toBeNull();
    expect(normalizeCountry("XX")).toBeNull();
  });

  it("places countries in UN M49 regions, including those with overseas territories", () => {
    expect(regionsOfCountry("FR")).toEqual(["western-europe", "europe"]);
    expect(regionsOfCountry("US")).toContain("northern-america");
    expect(regionsOfCountry("SG")).toEqual(["south-eastern-asia", "asia"]);
    expect(worldRegionOf("BR")).toBe("south-america");
  });
});

describe("metrics", () => {
  it("buckets employee counts at the contract's bounds", () => {
    expect([1, 10, 11, 50, 51, 10000, 10001].map(employeeRangeOf)).toEqual(["1-10", "1-10", "11-50", "11-50", "51-200", "5001-10000", "10001+"]);
  });
});

describe("customer text", () => {
  it("prefers customer_description, then customer sentences of the description, else none", () => {
    expect(customerTextOf({ customer_description: "Dentists", description: "We sell to hospitals." })).toBe("Dentists");
    expect(customerTextOf({ customer_description: null, description: "Acme builds robots. It is built for dental clinics. Founded in 2001." })).toBe(
      "It is built for dental clinics.",
    );
    expect(customerTextOf({ customer_description: null, description: "Acme builds robots. Founded in 2001." })).toBeNull();
  });

  it("finds the same customer sentences in a whole text as in each of its sentences alone, however the text is spaced", () => {
    const sentences = [
      "Acme builds robots.",
      "It is built\n for dental clinics.",
      "We serve  SMBs.",
      "Trusted by\u00a0banks!",
      "Founded in 2001.",
      "Our clients love us?",
    ];
    const spaces = [" ", "  ", "\n", "\t", "\u00a0", "\r\n", " \u2028 "];
    const random = rng(12);
    for (let n = 0; n < 500; n++) {
      const picked = Array.from({ length: 1 + Math.floor(random() * 5) }, () => sentences[Math.floor(random() * sentences.length)] as string);
      const text = picked.map((s) => s.replace(/ /g, () => spaces[Math.floor(random() * spaces.length)] as string)).join(spaces[n % spaces.length]);
      expect(customerSentences(text)).toEqual(splitSentences(text).filter((sentence) => customerSentences(sentence).length > 0));
    }
  });
});

describe("organization normalization", () => {
  it("derives range, year, country name and region; missing fields are null", () => {
    const org = normalizeOrganization({
      id: 1,
      name: "Acme",
      metrics: { employee_count: 42, founded_on: "2015-03-01" },
      location: { headquarters: { city: "Lyon", country_code: "FRA", subdivision_code: "fr-ara" } },
    });
    expect(org.metrics).toMatchObject({ employee_range: "11-50", founded_year: 2015, funding: null });
    expect(org.location.headquarters).toMatchObject({ country_code: "FR", country: "France", subdivision_code: "FR-ARA", world_region: "western-europe" });
    expect(org.description).toBeNull();
  });

  it("refuses unknown codes and contradictions, naming the field", () => {
    expect(() => normalizeOrganization({ id: 1, name: "A", location: { headquarters: { country_code: "ZZ" } } })).toThrow(/country_code/);
    expect(() => normalizeOrganization({ id: 1, name: "A", location: { headquarters: { country_code: "DE", subdivision_code: "FR-ARA" } } })).toThrow(
      /not in country DE/,
    );
    expect(() => normalizeOrganization({ id: 1, name: "A", metrics: { founded_year: 2001, founded_on: "2003-01-01" } })).toThrow(OrgsimError);
  });
});

describe("search input", () => {
  it("accepts REST strings and lists and turns them into store filters", () => {
    const input = SimilarToDescriptionInput.parse({
      description: "robots",
      countries: "US,DEU",
      regions: ["europe", "US-CA"],
      employees_min: "10",
      hq_only: "false",
      limit: "5",
    });
    const filter = toStoreFilter(input);
    expect(filter.location?.hqOnly).toBe(false);
    expect(filter.location?.subdivisions).toEqual(["US-CA"]);
    expect(filter.location?.countries).toContain("US");
    expect(filter.location?.countries).toContain("FR");
    expect(filter.employeesMin).toBe(10);
    expect(input.limit).toBe(5);
  });

  it("names the parameter of an impossible range", () => {
    const result = SimilarToDescriptionInput.safeParse({ description: "robots", employees_min: 9, employees_max: 3 });
    expect(result.error?.issues[0]?.path).toEqual(["employees_min"]);
  });
});

describe("cursors", () => {
  it("resume only the query they were issued for", () => {
    const q = fingerprint(["description", "robots", {}]);
    const cursor = encodeCursor(20, q);
    expect(decodeCursor(cursor, q, (p): p is number => typeof p === "number")).toBe(20);
    expect(() => decodeCursor(cursor, fingerprint(["other"]), (p): p is number => typeof p === "number")).toThrow(/different query/);
    expect(() => decodeCursor("garbage!", q, (p): p is number => typeof p === "number")).toThrow(/invalid cursor/);
  });

  it("cannot be edited: a changed position or query fingerprint breaks the signature", () => {
    const isNumber = (p: unknown): p is number => typeof p === "number";
    const q = fingerprint(["description", "robots", {}]);
    const [payload, signature] = encodeCursor(20, q).split(".");
    const forged = Buffer.from(JSON.stringify({ p: 980, q })).toString("base64url");
    expect(() => decodeCursor(`${forged}.${signature}`, q, isNumber)).toThrow(/altered/);
    expect(() => decodeCursor(`${payload}`, q, isNumber)).toThrow(/altered/);
    expect(() => decodeCursor(`${payload}.${signature}x`, q, isNumber)).toThrow(/altered/);
  });

  it("are signed with the operator's secret when one is set", () => {
    const isNumber = (p: unknown): p is number => typeof p === "number";
    const q = fingerprint(["q"]);
    setCursorSecret("a".repeat(32));
    const cursor = encodeCursor(10, q);
    setCursorSecret("b".repeat(32));
    expect(() => decodeCursor(cursor, q, isNumber)).toThrow(/altered/);
    setCursorSecret("a".repeat(32));
    expect(decodeCursor(cursor, q, isNumber)).toBe(10);
    expect(() => setCursorSecret("short")).toThrow(/32 characters/);
  });
});

describe("lexicalTerms", () => {
  it("splits words as Lucene's standard tokenizer does, lower-cases them and drops stop words", () => {
    expect(lexicalTerms("We build ROBOTS for the warehouse: 3D-printing, e-commerce & B2B in Zürich (2024)!")).toEqual([
      "build",
      "robots",
      "warehouse",
      "3d",
      "printing",
      "e",
      "commerce",
      "b2b",
      "zürich",
      "2024",
    ]);
    expect(lexicalTerms("U.S.A. don't O'Reilly's 10,000+ 1.5x café_bar a:b a.5 __ x_")).toEqual([
      "u.s.a",
      "don't",
      "o'reilly's",
      "10,000",
      "1.5x",
      "café_bar",
      "a:b",
      "5",
      "x_",
    ]);
    expect(lexicalTerms("the of and a I")).toEqual([]);
    // Han ideographs one by one; pictographs are words too.
    expect(lexicalTerms("数据平台 données ™")).toEqual(["数", "据", "平", "台", "données", "™"]);
  });

  it("scans a Latin text in one pass to the very terms of its tokens, lower-cased, without stop words", () => {
    // Pieces that make and join words (letters, digits, "_", the joiners), separators, Latin-1 letters and symbols, a long word, and now and then a character outside the one-pass scan.
    const pieces = [
      "a",
      "Z",
      "é",
      "Ÿ",
      "ß",
      "7",
      "_",
      ".",
      "'",
      "’",
      ",",
      ";",
      ":",
      "·",
      "-",
      " ",
      "\n",
      "×",
      "©",
      "\u00ad",
      "—",
      "…",
      "The",
      "for",
      "x".repeat(300),
    ];
    const rare = ["数", "™", "🚀", "\u200b"];
    const stop = new Set(LEXICAL_STOP_WORDS);
    const reference = (text: string) =>
      standardTokens(text)
        .map((t) => t.toLowerCase())
        .filter((t) => !stop.has(t));
    const random = rng(11);
    for (let n = 0; n < 3000; n++) {
      const parts = Array.from({ length: 1 + Math.floor(random() * 40) }, () => pieces[Math.floor(random() * pieces.length)] as string);
      if (n % 10 === 0) parts.splice(Math.floor(random() * parts.length), 0, rare[n % rare.length] as string);
      const text = parts.join("");
      expect(lexicalTerms(text), JSON.stringify(text)).toEqual(reference(text));
    }
  });
});

describe("distinctiveTerms", () => {
  const stats = {
    documents: 1000,
    docFrequency: new Map([
      ["platform", 190],
      ["payroll", 12],
      ["dental", 3],
      ["software", 150],
      ["clinics", 30],
      ["cloud", 400],
    ]),
  };

  it("keeps the terms that weigh most in BM25 (frequency times idf), each once, and drops terms no text holds", () => {
    const terms = ["software", "payroll", "platform", "dental", "clinics", "zeppelin", "software"];
    // software: 2 × idf 1.90; clinics: 1 × idf 3.49.
    expect(distinctiveTerms(termFrequency(terms), stats, 3)).toEqual(["dental", "payroll", "software"]);
    expect(distinctiveTerms(termFrequency(terms), stats, 10)).toEqual(["dental", "payroll", "software", "clinics", "platform"]);
  });

  it("leaves out terms held by more than a fifth of the texts, unless the store is small", () => {
    const terms = ["cloud", "cloud", "cloud", "platform"];
    // cloud is in 40 % of the texts (platform in 19 %): left out however often the text says it.
    expect(distinctiveTerms(termFrequency(terms), stats)).toEqual(["platform"]);
    const small = { documents: 120, docFrequency: new Map([["cloud", 90]]) };
    // In 75 % of 120 texts, but 90 texts are too few to call it common.
    expect(distinctiveTerms(termFrequency(terms), small)).toEqual(["cloud"]);
  });

  it("ties go by term", () => {
    const tied = {
      documents: 10,
      docFrequency: new Map([
        ["b", 1],
        ["a", 1],
      ]),
    };
    expect(distinctiveTerms(termFrequency(["b", "a"]), tied, 1)).toEqual(["a"]);
  });
});

describe("lookup keys", () => {
  it("splits names into lower-case words without accents", () => {
    expect(nameWords("Stripe, Inc.")).toEqual(["stripe", "inc"]);
    expect(nameWords("Über Café & Co-op 24/7")).toEqual(["uber", "cafe", "co", "op", "24", "7"]);
    expect(nameWords("İstanbul Ödeme")).toEqual(["istanbul", "odeme"]);
    expect(nameWords("株式会社 メルカリ")).toEqual(["株式会社", "メルカリ"]);
    expect(nameWords(" !! ")).toEqual([]);
    expect(nameKey("  Stripe   Atlas ")).toBe("stripe atlas");
  });

  it("splits an ASCII name (its own quick path) as the Unicode path does", () => {
    const ascii = String.fromCharCode(...Array.from({ length: 128 }, (_, code) => code));
    const words = ["0123456789", "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz"];
    expect(nameWords(ascii)).toEqual(words);
    // One character past ASCII sends the same characters through the Unicode path.
    expect(nameWords(`${ascii}é`)).toEqual([...words, "e"]);
  });

  it("reduces a domain or URL to its host", () => {
    expect(domainKey("Stripe.com")).toBe("stripe.com");
    expect(domainKey("https://www.Stripe.com/pricing?x=1#y")).toBe("stripe.com");
    expect(domainKey("www2.stripe.com:8443")).toBe("stripe.com");
    expect(domainKey("user:secret@stripe.com.")).toBe("stripe.com");
    expect(domainKey("münchen.de")).toBe("xn--mnchen-3ya.de");
    expect(domainKey("api.stripe.com")).toBe("api.stripe.com");
    for (const nothing of ["", "   ", "stripe", "not a domain", "http://"]) expect(domainKey(nothing), nothing).toBeNull();
  });
});

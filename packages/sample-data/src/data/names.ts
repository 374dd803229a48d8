/**
 * Pieces of invented company names. Coined words are built from these
 * syllables; the blocklist rejects coinages that happen to spell a well-known
 * brand or a plain English word.
 */

export const ONSETS = [
  "b", "br", "c", "d", "dr", "f", "fl", "g", "gr", "h", "j", "k", "kr", "l", "m", "n",
  "p", "pr", "qu", "r", "s", "sk", "st", "t", "th", "tr", "v", "w", "z",
] as const;

export const VOWELS = ["a", "e", "i", "o", "u", "a", "e", "o", "a", "ai"] as const;

export const MIDDLES = ["l", "m", "n", "r", "v", "d", "t", "s", "l", "n", "r", "v", "nd", "lv", "st", "x"] as const;

/** Middles for an optional second syllable: single consonants only, to keep names short. */
export const SOFT_MIDDLES = ["l", "m", "n", "r", "v", "d", "t"] as const;

export const ENDINGS = [
  "a", "o", "ia", "ix", "on", "us", "ara", "ena", "ino", "ora", "ex", "is",
  "yn", "el", "ari", "eno", "ova", "ika", "ium", "era", "ant", "ly",
] as const;

/** Generic words after a coined name: "Talvexa Labs". */
export const GENERIC_SUFFIXES = ["Labs", "Systems", "Technologies", "Works", "Group", "Partners", "Solutions", "Studio"] as const;

/** Legal forms by country, used for some older companies: "Brivora GmbH". */
export const LEGAL_FORMS: Readonly<Record<string, readonly string[]>> = {
  US: ["Inc", "Corporation", "LLC"],
  CA: ["Inc", "Ltd"],
  GB: ["Ltd", "plc"],
  IE: ["Ltd"],
  DE: ["GmbH", "AG"],
  AT: ["GmbH", "AG"],
  CH: ["AG", "SA"],
  FR: ["SAS", "SA"],
  BE: ["NV", "SA"],
  NL: ["BV", "NV"],
  ES: ["SL", "SA"],
  IT: ["SpA", "Srl"],
  PT: ["Lda", "SA"],
  SE: ["AB"],
  NO: ["AS"],
  DK: ["A/S"],
  FI: ["Oy"],
  PL: ["sp. z o.o."],
  BR: ["Ltda", "SA"],
  MX: ["SA de CV"],
  IN: ["Pvt Ltd", "Ltd"],
  JP: ["KK"],
  AU: ["Pty Ltd"],
  NZ: ["Ltd"],
  ZA: ["(Pty) Ltd"],
};

/** Coinages containing any of these are rejected: offensive or unfortunate words. */
export const BLOCKED_FRAGMENTS = [
  "anal", "anus", "ass", "bitch", "brothel", "butt", "cock", "crap", "cum", "damn", "dead", "devil", "dick", "die",
  "drug", "fag", "fart", "fuck", "hell", "hitl", "homo", "idiot", "isis", "jihad", "kill", "moron", "nazi", "negr",
  "nig", "piss", "poo", "porn", "puke", "pus", "rape", "satan", "semen", "sex", "shit", "slut", "suck", "tit",
  "turd", "vomit", "whor", "hore", "scum", "dumb", "dung", "gun", "war", "bomb", "toxi", "virus", "cancer", "tumor",
] as const;

/**
 * Coinages rejected outright: famous brands and words the syllables can spell.
 * Compared case-insensitively against the coined word alone.
 */
export const BLOCKED_WORDS = new Set(
  [
    "adobe", "airbus", "aldi", "altera", "amazon", "apex", "apple", "arlo", "asana", "audi", "auchan", "bayer",
    "bolt", "bosch", "braun", "canon", "canva", "cisco", "dell", "deel", "delta", "dora", "ebay", "enel",
    "engie", "epson", "etsy", "fiat", "figma", "fitbit", "garmin", "gusto", "honda", "hulu", "ikea", "intel",
    "kia", "klarna", "kodak", "lego", "lenovo", "lexus", "lidl", "lola", "loom", "lumen", "lyra", "mazda",
    "merck", "meta", "miele", "miro", "monzo", "mural", "nest", "nexus", "nikon", "nivea", "nokia", "nova",
    "novartis", "nubank", "okta", "opel", "oracle", "oura", "otto", "polar", "porsche", "qonto", "renault",
    "revolut", "ricoh", "roche", "rolex", "safran", "sage", "samsung", "sanofi", "sharp", "skoda", "slack",
    "sonos", "sony", "sora", "stripe", "subaru", "suzuki", "tala", "tesco", "tesla", "thales", "toshiba",
    "toyota", "twilio", "uber", "valeo", "vega", "velo", "vertex", "vespa", "vimeo", "visa", "volvo", "xerox",
    "xero", "yamaha", "zalando", "zara", "zola", "zora", "zenith", "kora", "nuro", "revo", "dara", "sera",
    "vira", "tora", "mira", "lima", "roma", "pisa", "vino", "mono", "solo", "kilo", "polo", "nero", "tino",
    "duo", "trio", "vivo", "oppo", "fanta", "sprite", "tango", "lotus", "bravo", "delta", "gamma", "sigma", "rosa",
    "peston", "genant", "grendel", "valo", "zunda", "sedan", "tenant", "talent", "salon", "melon", "demon", "lemon",
  ].map((w) => w.toLowerCase()),
);

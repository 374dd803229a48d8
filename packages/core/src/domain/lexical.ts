/**
 * The lexical half of hybrid search: which text of an organization is searched by words, how a
 * text becomes terms, and the BM25 parameters. Both backends index exactly these terms (the
 * embedded one with this function, Elasticsearch with an analyzer built from the same pattern and
 * stop words), so their lexical rankings agree.
 */
import { customerTextOf, profileTextOf } from "./embedding-text";
import { categoryName } from "./taxonomy";
import type { TermStatistics, VectorKind } from "../ports/organization-store";

/** Okapi BM25 as Lucene (and so Elasticsearch) scores it by default. */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** English function words: they match nearly every description and only add noise to a whole-text query. */
export const LEXICAL_STOP_WORDS: readonly string[] = (
  "a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing down " +
  "during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no " +
  "nor not now of off on once only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves then there " +
  "these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours yourself yourselves"
).split(" ");
const STOP = new Set(LEXICAL_STOP_WORDS);

/**
 * How many of an organization's terms a similar-to-organization word search asks for: its most
 * distinctive ones, as a MoreLikeThis query does (Lucene's default max query terms is also 25).
 * A whole profile is often 100+ terms, most of them common; these carry nearly all of its BM25 weight.
 */
export const MORE_LIKE_THIS_TERMS = 25;

/**
 * A term held by more than this share of the texts is left out of those terms, as Lucene's
 * MoreLikeThis leaves out words above its maxDocFreqPct: it tells organizations apart least (its
 * idf is the lowest), and its postings are the longest, so the word search spends most on it.
 * At a fifth, similar-to-X precision in `pnpm bench:quality` held; at a tenth yc's fell a little,
 * at a twentieth every corpus's (docs/benchmarks.md, "Common words left out").
 */
const MORE_LIKE_THIS_MAX_DOC_SHARE = 0.2;
/** Terms held by at most this many texts stay however small the store: in a small one, a few texts are a large share. */
const MORE_LIKE_THIS_ALWAYS_RARE = 100;

/** How many times each term occurs in `terms`. */
export function termFrequency(terms: readonly string[]): Map<string, number> {
  const frequency = new Map<string, number>();
  for (const term of terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  return frequency;
}

/**
 * The `max` terms of a text (each term with its count there) that weigh most in BM25 for this
 * store: count times idf, ties by term. Terms no stored text holds are dropped (they match
 * nothing), and so are those too common to tell texts apart (MORE_LIKE_THIS_MAX_DOC_SHARE).
 */
export function distinctiveTerms(frequency: ReadonlyMap<string, number>, stats: TermStatistics, max = MORE_LIKE_THIS_TERMS): string[] {
  const n = stats.documents;
  const mostDocs = Math.max(MORE_LIKE_THIS_ALWAYS_RARE, MORE_LIKE_THIS_MAX_DOC_SHARE * n);
  const weighed = [...frequency].flatMap(([term, tf]) => {
    const df = stats.docFrequency.get(term) ?? 0;
    return df > 0 && df <= mostDocs ? [{ term, weight: tf * Math.log(1 + (n - df + 0.5) / (df + 0.5)) }] : [];
  });
  weighed.sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  return weighed.slice(0, max).map((w) => w.term);
}

/** Lucene's StandardTokenizer splits longer tokens at this length. */
const MAX_TOKEN_LENGTH = 255;

/**
 * Words of a text as Lucene's StandardTokenizer finds them (Unicode UAX #29 word boundaries, which
 * Elasticsearch's `standard` tokenizer applies): "3D-printing" is 3D + printing, "don't", "U.S.A"
 * and "10,000" stay whole, "café_bar" is one word, each Han ideograph is a word of its own.
 */
export function standardTokens(text: string): string[] {
  const tokens = PLAIN.test(text) ? plainTokens(text) : segmentedTokens(text);
  return tokens.flatMap((t) => (t.length <= MAX_TOKEN_LENGTH ? [t] : (t.match(/[\s\S]{1,255}/g) ?? [])));
}

/** Lower-cased words of a text in order, stop words dropped (repeats kept): the terms both backends index. */
export function lexicalTerms(text: string): string[] {
  const plain = plainTerms(text);
  if (plain) return plain;
  const terms: string[] = [];
  for (const token of standardTokens(text)) {
    const term = token.toLowerCase();
    if (!STOP.has(term)) terms.push(term);
  }
  return terms;
}

// The fast path: texts in ASCII and Latin-1/Latin Extended letters, where the UAX #29 rules that
// matter are few (a scan is 40 times faster than Intl.Segmenter, which matters when loading a
// million organizations). Anything else goes through Intl.Segmenter.
const PLAIN = /^[\t\n\r\x20-\x7e\u00a0-\u00a8\u00aa-\u00ac\u00af-\u024f\u2010-\u2014\u2018-\u201d\u2022\u2026]*$/;
const isDigit = (c: number) => c >= 48 && c <= 57;
/** ALetter in this range: ASCII and Latin letters (not × ÷, not the Latin-1 symbols). */
const isLetter = (c: number) =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 0xaa || c === 0xba || c === 0xb5 || (c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7);
/** Letters, digits and the connector "_" (ExtendNumLet) make up words. */
const isWordChar = (c: number) => isLetter(c) || isDigit(c) || c === 95;
/** Between two letters: MidLetter (: ·) and MidNumLet (. ' ’ ‘). */
const joinsLetters = (c: number) => c === 58 || c === 0xb7 || c === 46 || c === 39 || c === 0x2019 || c === 0x2018;
/** Between two digits: MidNum (, ;) and MidNumLet (. ' ’ ‘). */
const joinsDigits = (c: number) => c === 44 || c === 59 || c === 46 || c === 39 || c === 0x2019 || c === 0x2018;

// What plainTerms needs to know of a character, as bits of one table lookup (characters below
// U+0250; the few PLAIN ones above are punctuation that neither makes nor joins words).
const PLAIN_CHAR = 1;
const WORD_CHAR = 2;
const LETTER = 4;
const DIGIT = 8;
const JOINS_LETTERS = 16;
const JOINS_DIGITS = 32;
const UNDERSCORE = 64;
const LOW_CLASSES = Uint8Array.from({ length: 0x250 }, (_, c) => {
  const ch = String.fromCharCode(c);
  return (
    (PLAIN.test(ch) ? PLAIN_CHAR : 0) |
    (isWordChar(c) ? WORD_CHAR : 0) |
    (isLetter(c) ? LETTER : 0) |
    (isDigit(c) ? DIGIT : 0) |
    (joinsLetters(c) ? JOINS_LETTERS : 0) |
    (joinsDigits(c) ? JOINS_DIGITS : 0) |
    (c === 95 ? UNDERSCORE : 0)
  );
});
const classOf = (c: number): number =>
  c < 0x250
    ? (LOW_CLASSES[c] as number)
    : c === 0x2018 || c === 0x2019
      ? PLAIN_CHAR | JOINS_LETTERS | JOINS_DIGITS
      : (c >= 0x2010 && c <= 0x201d) || c === 0x2022 || c === 0x2026
        ? PLAIN_CHAR
        : 0;

/**
 * lexicalTerms of a PLAIN text in one scan (plainTokens, then lower case and stop words, without
 * the arrays between: the word index of an import tokenizes every text); null as soon as the text
 * proves not PLAIN.
 */
function plainTerms(text: string): string[] | null {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    let k = classOf(text.charCodeAt(i));
    while (!(k & WORD_CHAR)) {
      if (!(k & PLAIN_CHAR)) return null;
      if (++i === n) return out;
      k = classOf(text.charCodeAt(i));
    }
    const start = i;
    // A run of "_" alone is no word.
    let word = false;
    for (;;) {
      while (k & WORD_CHAR) {
        if (!(k & UNDERSCORE)) word = true;
        if (++i === n) break;
        k = classOf(text.charCodeAt(i));
      }
      if (i + 1 < n) {
        // k: the class of the character at i, which ended the run
        const before = classOf(text.charCodeAt(i - 1));
        const after = classOf(text.charCodeAt(i + 1));
        if ((before & after & LETTER && k & JOINS_LETTERS) || (before & after & DIGIT && k & JOINS_DIGITS)) {
          i += 1;
          k = after;
          continue;
        }
      }
      break;
    }
    if (!word) continue;
    for (let from = start; from < i; from += MAX_TOKEN_LENGTH) {
      const term = text.slice(from, Math.min(i, from + MAX_TOKEN_LENGTH)).toLowerCase();
      if (!STOP.has(term)) out.push(term);
    }
  }
  return out;
}

function plainTokens(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && !isWordChar(text.charCodeAt(i))) i++;
    if (i >= n) break;
    const start = i;
    for (;;) {
      while (i < n && isWordChar(text.charCodeAt(i))) i++;
      if (i + 1 < n) {
        const before = text.charCodeAt(i - 1);
        const mid = text.charCodeAt(i);
        const after = text.charCodeAt(i + 1);
        if ((isLetter(before) && isLetter(after) && joinsLetters(mid)) || (isDigit(before) && isDigit(after) && joinsDigits(mid))) {
          i++;
          continue;
        }
      }
      break;
    }
    const token = text.slice(start, i);
    // A run of "_" alone is no word.
    if (/[^_]/.test(token)) out.push(token);
  }
  return out;
}

const SEGMENTER = new Intl.Segmenter("en", { granularity: "word" });
/** Lucene makes each Han ideograph and each Hiragana character a word of its own. */
const PICTOGRAPH = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const SINGLE_CHARACTER_WORDS = /[\p{Script=Han}\p{Script=Hiragana}]/u;

function segmentedTokens(text: string): string[] {
  const out: string[] = [];
  for (const { segment, isWordLike } of SEGMENTER.segment(text)) {
    if (!isWordLike) {
      // Lucene also makes emoji and pictographs (™ ® ©) words; the segmenter does not call them word-like.
      if (PICTOGRAPH.test(segment)) out.push(segment);
      continue;
    }
    if (SINGLE_CHARACTER_WORDS.test(segment)) {
      let run = "";
      for (const ch of segment) {
        if (SINGLE_CHARACTER_WORDS.test(ch)) {
          if (run) out.push(run);
          run = "";
          out.push(ch);
        } else run += ch;
      }
      if (run) out.push(run);
    } else out.push(segment);
  }
  return out;
}

/** The texts searched by words: the same texts the two vectors embed (customer text null when there is none). */
export function lexicalTextsOf(org: Parameters<typeof profileTextOf>[0] & Parameters<typeof customerTextOf>[0]): Record<VectorKind, string | null> {
  return { profile: profileTextOf(org, categoryName), customer: customerTextOf(org) };
}

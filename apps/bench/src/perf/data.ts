/**
 * The bench's organizations.
 *
 * Real: an evenly spaced subset of each corpus in ../shared/datasets (yc, equities), mapped by the
 * product's own mappings (examples/mappings/*.json) and embedded by the product importer; their
 * vectors are read back from the store the import wrote.
 *
 * Synthetic (everything past the real subset), deterministic for a seed:
 * - vector: normalize(α·a + (1−α)·b + s·g), where a is a random real organization's vector, b one
 *   of a's 10 nearest real neighbours, α ~ U(0.6, 1), g an isotropic Gaussian direction (unit
 *   norm) and s the noise norm (default 0.35). The customer-base vector is made the same way from
 *   a's and b's customer vectors (none when a has none). So synthetic organizations sit in and
 *   between real neighbourhoods, not as uniform noise on the sphere.
 * - filter fields: headquarters, offices, employee count (× e^N(0, 0.4)) and founding year (± 3)
 *   of a donor: a itself half of the time, a random real organization otherwise; the name and
 *   description are a's (so documents have real sizes), marked fictional.
 * - id: spread over 2^48 in no order, as the importer's hashed ids are (SyntheticIds).
 */
import { createReadStream, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { openEmbeddedBackend } from "@orgsim/backend-embedded";
import { employeeRangeOf, type Organization, type OrganizationRecord, type VectorModel } from "@orgsim/core";
import { loadMapping, mapRecord } from "@orgsim/importer";
import { seededRandom } from "@orgsim/sample-data";

export interface Corpus {
  name: "yc" | "equities";
  file: string;
  mapping: string;
}

export const corpora = (repo: string): Corpus[] => [
  { name: "yc", file: join(repo, "..", "shared", "datasets", "yc", "companies.ndjson"), mapping: join(repo, "examples", "mappings", "yc.json") },
  {
    name: "equities",
    file: join(repo, "..", "shared", "datasets", "equities", "companies.ndjson"),
    mapping: join(repo, "examples", "mappings", "equities.json"),
  },
];

async function readLines(file: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) if (line.trim()) lines.push(line);
  return lines;
}

export interface RealSubset {
  corpus: Corpus;
  /** The subset as an NDJSON file (the importer's input). */
  file: string;
  /** Rows in the whole corpus. */
  corpusRows: number;
  /** The organizations as the importer stores them (same mapping), in file order. */
  organizations: Organization[];
}

/** Every (rows / count)-th row of a corpus, written to `dir`, with the organizations they map to. */
export async function realSubset(corpus: Corpus, count: number, dir: string): Promise<RealSubset> {
  const lines = await readLines(corpus.file);
  const take = Math.min(count, lines.length);
  const step = lines.length / take;
  const chosen = Array.from({ length: take }, (_, i) => lines[Math.floor(i * step)] as string);
  const mapping = await loadMapping(corpus.mapping);
  const organizations: Organization[] = [];
  const kept: string[] = [];
  const seen = new Set<number>();
  for (const line of chosen) {
    const result = mapRecord(JSON.parse(line), mapping);
    if (!result.ok || seen.has(result.organization.id)) continue;
    seen.add(result.organization.id);
    organizations.push(result.organization);
    kept.push(line);
  }
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${corpus.name}-${kept.length}.ndjson`);
  writeFileSync(file, `${kept.join("\n")}\n`);
  return { corpus, file, corpusRows: lines.length, organizations };
}

/** The real organizations with the vectors the product import stored for them (embedded store). */
export async function harvest(dataDir: string, organizations: Organization[]): Promise<{ records: OrganizationRecord[]; model: VectorModel }> {
  const backend = openEmbeddedBackend({ dataDir });
  try {
    const model = await backend.organizations.vectorModel();
    if (!model) throw new Error(`no vectors in ${dataDir}`);
    const records: OrganizationRecord[] = [];
    for (const organization of organizations) {
      const stored = await backend.organizations.get(organization.id);
      const profileVector = await backend.organizations.getVector(organization.id, "profile");
      if (!stored || !profileVector) throw new Error(`organization ${organization.id} was not imported`);
      const customerVector = await backend.organizations.getVector(organization.id, "customer");
      records.push({
        organization: stored,
        profileVector: Float32Array.from(profileVector),
        customerVector: customerVector ? Float32Array.from(customerVector) : null,
      });
    }
    return { records, model };
  } finally {
    await backend.close();
  }
}

/** A 32-bit hash of two integers (seeding one stream per batch). */
function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}

/** A permutation of [0, 2^48): four Feistel rounds over two 24-bit halves, each round's function `mix`. */
export function permute48(x: number): number {
  let left = Math.floor(x / 2 ** 24);
  let right = x % 2 ** 24;
  for (let round = 0; round < 4; round++) [left, right] = [right, (left ^ mix(right, round)) & 0xffffff];
  return left * 2 ** 24 + right;
}

const dotF = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
};

/** Ids of synthetic organizations lie in [this, this + 2^48): above every id the importer hashes (< 2^48). */
export const SYNTHETIC_ID_BASE = 300_000_000_000_000;

/**
 * How synthetic ids run. `spread`: a fixed permutation of the ordinals over 2^48, in no order, as
 * `orgsim import`'s hashed ids and a CRM's own ids are; an import of them writes into every
 * id-keyed index at random. `consecutive`: the ordinals themselves (runs before `spread` existed).
 */
export type SyntheticIds = "spread" | "consecutive";
export const SYNTHETIC_IDS: readonly SyntheticIds[] = ["spread", "consecutive"];

export interface SyntheticOptions {
  ids: SyntheticIds;
  seed: number;
  /** Norm of the isotropic noise added to each synthetic vector (before normalization). */
  noise: number;
  neighbours: number;
}

export const DEFAULT_SYNTHETIC: SyntheticOptions = { ids: "spread", seed: 42, noise: 0.35, neighbours: 10 };

export class Dataset {
  /** For every real organization, its nearest real neighbours by profile cosine. */
  private readonly near: Int32Array[];
  readonly dimension: number;

  constructor(
    readonly real: OrganizationRecord[],
    readonly options: SyntheticOptions = DEFAULT_SYNTHETIC,
  ) {
    this.dimension = real[0]?.profileVector.length ?? 0;
    const n = real.length;
    const k = Math.min(options.neighbours, n - 1);
    this.near = real.map((r, i) => {
      const scores: [number, number][] = [];
      for (let j = 0; j < n; j++) if (j !== i) scores.push([dotF(r.profileVector, (real[j] as OrganizationRecord).profileVector), j]);
      scores.sort((x, y) => y[0] - x[0]);
      return Int32Array.from(scores.slice(0, k).map(([, j]) => j));
    });
  }

  /** Records [start, start + count) of the dataset: the real organizations first, then synthetic ones. */
  batch(start: number, count: number): OrganizationRecord[] {
    const out: OrganizationRecord[] = [];
    const random = seededRandom(mix(this.options.seed, start));
    for (let i = start; i < start + count; i++) {
      if (i < this.real.length) out.push(this.real[i] as OrganizationRecord);
      else out.push(this.synthetic(i, random));
    }
    return out;
  }

  /** The id of record i (without generating it). */
  idOf(i: number): number {
    return i < this.real.length ? (this.real[i] as OrganizationRecord).organization.id : this.syntheticId(i - this.real.length + 1);
  }

  /** The id of the synthetic organization of this ordinal (1, 2, …). */
  private syntheticId(ordinal: number): number {
    return SYNTHETIC_ID_BASE + (this.options.ids === "spread" ? permute48(ordinal) : ordinal);
  }

  private synthetic(i: number, random: () => number): OrganizationRecord {
    const n = this.real.length;
    const ai = Math.floor(random() * n);
    const a = this.real[ai] as OrganizationRecord;
    const near = this.near[ai] as Int32Array;
    const b = this.real[near[Math.floor(random() * near.length)] as number] as OrganizationRecord;
    const alpha = 0.6 + 0.4 * random();
    const profileVector = this.blend(a.profileVector, b.profileVector, alpha, random);
    const customerVector = a.customerVector ? this.blend(a.customerVector, b.customerVector ?? a.customerVector, alpha, random) : null;
    const donor = random() < 0.5 ? a : (this.real[Math.floor(random() * n)] as OrganizationRecord);
    const ordinal = i - n + 1;
    const id = this.syntheticId(ordinal);
    const d = donor.organization;
    let employees = d.metrics.employee_count;
    if (employees !== null) employees = Math.max(1, Math.round(employees * Math.exp(0.4 * gaussian(random))));
    let founded = d.metrics.founded_year;
    if (founded !== null) founded = Math.min(2025, founded + Math.floor(random() * 7) - 3);
    const organization: Organization = {
      ...a.organization,
      id,
      name: `${a.organization.name} (synthetic ${ordinal})`.slice(0, 200),
      domain: null,
      logo_url: null,
      contact: { ...a.organization.contact, website: null },
      metrics: {
        ...a.organization.metrics,
        employee_count: employees,
        employee_range: employees === null ? d.metrics.employee_range : employeeRangeOf(employees),
        founded_on: null,
        founded_year: founded,
      },
      location: d.location,
      fictional: true,
    };
    return { organization, profileVector, customerVector };
  }

  private blend(a: Float32Array, b: Float32Array, alpha: number, random: () => number): Float32Array {
    const d = a.length;
    const g = new Float64Array(d);
    let gNorm = 0;
    for (let i = 0; i < d; i += 2) {
      // Box-Muller, both outputs.
      const r = Math.sqrt(-2 * Math.log(1 - random()));
      const t = 2 * Math.PI * random();
      g[i] = r * Math.cos(t);
      if (i + 1 < d) g[i + 1] = r * Math.sin(t);
    }
    for (let i = 0; i < d; i++) gNorm += (g[i] as number) ** 2;
    const scale = this.options.noise / Math.sqrt(gNorm);
    const v = new Float32Array(d);
    let norm = 0;
    for (let i = 0; i < d; i++) {
      const x = alpha * (a[i] as number) + (1 - alpha) * (b[i] as number) + scale * (g[i] as number);
      v[i] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    for (let i = 0; i < d; i++) v[i] = (v[i] as number) / norm;
    return v;
  }
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

interface SavedRecord {
  organization: Organization;
  profile: string;
  customer: string | null;
}

const toBase64 = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
const fromBase64 = (s: string) => {
  const bytes = Buffer.from(s, "base64");
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
};

/** Keeps the real records (organizations and their vectors) for a later run with --skip-import. */
export function saveReal(file: string, model: VectorModel, records: OrganizationRecord[]): void {
  const saved: SavedRecord[] = records.map((r) => ({
    organization: r.organization,
    profile: toBase64(r.profileVector),
    customer: r.customerVector ? toBase64(r.customerVector) : null,
  }));
  writeFileSync(file, JSON.stringify({ model, records: saved }));
}

export function loadReal(file: string): { model: VectorModel; records: OrganizationRecord[] } {
  const { model, records } = JSON.parse(readFileSync(file, "utf8")) as { model: VectorModel; records: SavedRecord[] };
  return {
    model,
    records: records.map((r) => ({
      organization: r.organization,
      profileVector: fromBase64(r.profile),
      customerVector: r.customer ? fromBase64(r.customer) : null,
    })),
  };
}

/** Headquarters and offices: real cities, more offices for larger organizations. */
import { CITIES, type City } from "../data/places";
import type { Random } from "../random";

export interface PlaceDraft {
  address_line: null;
  city: string;
  subdivision_code: string | null;
  postal_code: string | null;
  country_code: string;
}

const CITY_WEIGHTS = CITIES.map((city) => [city, city.weight] as const);

export function drawHeadquarters(rng: Random): City {
  return rng.weighted(CITY_WEIGHTS);
}

/** 0–4 offices in other cities; the larger the organization, the more and the farther. */
export function drawOffices(rng: Random, hq: City, employees: number): City[] {
  const count = officeCount(rng, employees);
  const offices: City[] = [];
  const taken = new Set([hq]);
  const domesticShare = employees < 1_000 ? 0.45 : 0.2;
  for (let i = 0; i < count; i++) {
    const domestic = CITY_WEIGHTS.filter(([city]) => city.country === hq.country && !taken.has(city));
    const pool = domestic.length > 0 && rng.chance(domesticShare) ? domestic : CITY_WEIGHTS.filter(([city]) => !taken.has(city));
    const office = rng.weighted(pool);
    taken.add(office);
    offices.push(office);
  }
  return offices;
}

// biome-ignore format: one weight table a line reads as a table
function officeCount(rng: Random, employees: number): number {
  if (employees < 15) return rng.chance(0.05) ? 1 : 0;
  if (employees < 50) return rng.chance(0.2) ? 1 : 0;
  if (employees < 200) return rng.weighted([[0, 5], [1, 4], [2, 1]] as const);
  if (employees < 1_000) return rng.weighted([[0, 2], [1, 4], [2, 3], [3, 1]] as const);
  if (employees < 5_000) return rng.weighted([[1, 2], [2, 4], [3, 3], [4, 1]] as const);
  return rng.weighted([[2, 2], [3, 4], [4, 4]] as const);
}

/** A city as a Place; the postal code is sometimes left out, as in real data. */
export function toPlace(rng: Random, city: City, postalShare = 0.85): PlaceDraft {
  const postal = city.postal && rng.chance(postalShare) ? rng.pick(city.postal) : null;
  return { address_line: null, city: city.city, subdivision_code: city.subdivision, postal_code: postal, country_code: city.country };
}

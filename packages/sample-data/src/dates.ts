/** Calendar dates as ISO strings and whole days since 1970-01-01 (UTC). */

const MS_PER_DAY = 86_400_000;
export const DAYS_PER_YEAR = 365.25;

export function toDays(isoDate: string): number {
  return Math.floor(Date.parse(`${isoDate}T00:00:00Z`) / MS_PER_DAY);
}

export function toIsoDate(days: number): string {
  return new Date(Math.floor(days) * MS_PER_DAY).toISOString().slice(0, 10);
}

export const yearOf = (isoDate: string) => Number(isoDate.slice(0, 4));

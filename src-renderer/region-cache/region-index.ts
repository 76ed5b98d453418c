/**
 * Read-only views of the cached region tree for pickers and the Regions
 * browser: lists in code order, lookups by code, and search by name or code.
 */
import type { RegionTree } from '../../src-shared/schemas/region-api';

export interface RegionEntry {
  name: string;
  code: string;
}

export type RegionLevel = 'province' | 'city' | 'district';

export interface RegionHit extends RegionEntry {
  level: RegionLevel;
  /** Names from the province down to this entry. */
  path: string[];
}

export interface RegionIndex {
  provinces: RegionEntry[];
  citiesOf(provinceCode: string): RegionEntry[];
  districtsOf(cityCode: string): RegionEntry[];
  byCode(code: string): RegionHit | undefined;
  search(query: string, limit?: number): { hits: RegionHit[]; truncated: boolean };
  counts: { provinces: number; cities: number; districts: number };
}

const byCodeOrder = (a: RegionEntry, b: RegionEntry) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);

export function buildRegionIndex(tree: RegionTree): RegionIndex {
  const provinces: RegionEntry[] = [];
  const cities = new Map<string, RegionEntry[]>();
  const districts = new Map<string, RegionEntry[]>();
  const all: RegionHit[] = [];
  const codes = new Map<string, RegionHit>();
  let cityCount = 0;
  let districtCount = 0;

  const remember = (hit: RegionHit) => {
    all.push(hit);
    // A county-level unit directly under a province shares its code with its only "district": keep the higher level.
    if (!codes.has(hit.code)) codes.set(hit.code, hit);
  };

  for (const [provinceName, province] of Object.entries(tree)) {
    provinces.push({ name: provinceName, code: province.val });
    remember({ name: provinceName, code: province.val, level: 'province', path: [provinceName] });
    const cityList: RegionEntry[] = [];
    for (const [cityName, city] of Object.entries(province.items)) {
      cityCount++;
      cityList.push({ name: cityName, code: city.val });
      remember({ name: cityName, code: city.val, level: 'city', path: [provinceName, cityName] });
      const districtList: RegionEntry[] = [];
      for (const [districtName, code] of Object.entries(city.items)) {
        districtCount++;
        districtList.push({ name: districtName, code });
        remember({ name: districtName, code, level: 'district', path: [provinceName, cityName, districtName] });
      }
      districts.set(city.val, districtList.sort(byCodeOrder));
    }
    cities.set(province.val, cityList.sort(byCodeOrder));
  }
  provinces.sort(byCodeOrder);

  return {
    provinces,
    citiesOf: (code) => cities.get(code) ?? [],
    districtsOf: (code) => districts.get(code) ?? [],
    byCode: (code) => codes.get(code),
    counts: { provinces: provinces.length, cities: cityCount, districts: districtCount },
    search(query, limit = 200) {
      const q = query.trim();
      if (q === '') return { hits: [], truncated: false };
      const hits: RegionHit[] = [];
      const isCode = /^[0-9]+$/.test(q);
      for (const hit of all) {
        if (isCode ? hit.code.startsWith(q) : hit.name.includes(q)) {
          if (hits.length === limit) return { hits, truncated: true };
          hits.push(hit);
        }
      }
      return { hits, truncated: false };
    },
  };
}

/**
 * The region tree in memory with O(1) lookups: province name → entry,
 * (province, city) → entry, code → path. Built once per data file; the
 * lists it hands out are frozen and shared.
 */
import type { RegionEntry, RegionSource, RegionTree } from '../../src-shared/schemas/region-api';
import { regionTreeProblems } from './region-rules';
// A JSON import (not a file read) so every runner and bundler (tsx, vitest,
// electron-vite) carries the data along with the code.
import committedRegionFile from './data/regions.json' with { type: 'json' };

export interface RegionFile {
  source: RegionSource;
  tree: RegionTree;
}

export interface CityIndex {
  entry: RegionEntry;
  /** Districts in code order. */
  districts: readonly RegionEntry[];
}
export interface ProvinceIndex {
  entry: RegionEntry;
  /** Cities in code order. */
  cities: readonly RegionEntry[];
  cityByName: ReadonlyMap<string, CityIndex>;
}

/** Where a code sits: its province, and its city and district when it is one (a self-district has both). */
export interface RegionPath {
  province: RegionEntry;
  city?: RegionEntry;
  district?: RegionEntry;
}

export interface RegionDataset {
  source: RegionSource;
  tree: RegionTree;
  counts: { provinces: number; cities: number; districts: number };
  /** Provinces in code order. */
  provinces: readonly RegionEntry[];
  province(name: string): ProvinceIndex | undefined;
  city(provinceName: string, cityName: string): CityIndex | undefined;
  provinceByCode(code: string): RegionEntry | undefined;
  /** The city with this code and its province. */
  cityByCode(code: string): { province: RegionEntry; city: RegionEntry } | undefined;
  /** The deepest division a code names. */
  lookupCode(code: string): RegionPath | undefined;
}

export class RegionDataError extends Error {
  override name = 'RegionDataError';
}

export function createRegionDataset(file: RegionFile): RegionDataset {
  const problems = regionTreeProblems(file.tree);
  if (problems.length > 0) throw new RegionDataError(`region data breaks its rules:\n  ${problems.slice(0, 20).join('\n  ')}`);

  const provinceByName = new Map<string, ProvinceIndex>();
  const provinceByCode = new Map<string, RegionEntry>();
  const cityByCode = new Map<string, { province: RegionEntry; city: RegionEntry }>();
  const pathByCode = new Map<string, RegionPath>();
  const provinces: RegionEntry[] = [];
  let cityCount = 0;
  let districtCount = 0;

  for (const [provinceName, provinceNode] of Object.entries(file.tree)) {
    const province = Object.freeze({ name: provinceName, code: provinceNode.val });
    provinces.push(province);
    provinceByCode.set(province.code, province);
    pathByCode.set(province.code, Object.freeze({ province }));
    const cities: RegionEntry[] = [];
    const cityByName = new Map<string, CityIndex>();
    for (const [cityName, cityNode] of Object.entries(provinceNode.items)) {
      const city = Object.freeze({ name: cityName, code: cityNode.val });
      cities.push(city);
      cityByCode.set(city.code, Object.freeze({ province, city }));
      pathByCode.set(city.code, Object.freeze({ province, city }));
      const districts: RegionEntry[] = [];
      for (const [districtName, districtCode] of Object.entries(cityNode.items)) {
        const district = Object.freeze({ name: districtName, code: districtCode });
        districts.push(district);
        pathByCode.set(district.code, Object.freeze({ province, city, district }));
      }
      cityByName.set(cityName, Object.freeze({ entry: city, districts: Object.freeze(districts) }));
      districtCount += districts.length;
    }
    cityCount += cities.length;
    provinceByName.set(provinceName, Object.freeze({ entry: province, cities: Object.freeze(cities), cityByName }));
  }
  Object.freeze(provinces);

  return {
    source: file.source,
    tree: file.tree,
    counts: { provinces: provinces.length, cities: cityCount, districts: districtCount },
    provinces,
    province: (name) => provinceByName.get(name),
    city: (provinceName, cityName) => provinceByName.get(provinceName)?.cityByName.get(cityName),
    provinceByCode: (code) => provinceByCode.get(code),
    cityByCode: (code) => cityByCode.get(code),
    lookupCode: (code) => pathByCode.get(code),
  };
}

let committed: RegionDataset | undefined;

/** The committed data set (src-main/regions/data/regions.json), loaded once per process. */
export function defaultRegionDataset(): RegionDataset {
  committed ??= createRegionDataset(committedRegionFile as unknown as RegionFile);
  return committed;
}

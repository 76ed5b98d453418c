/**
 * Region reference data for the HTTP endpoints, the console and the alpha
 * sell validation. Lookups are exact-name, O(1); unknown names are
 * NOT_FOUND errors naming the parameter.
 */
import { AppError, ErrorCode, SUCCESS_CODE } from '../../src-shared/errors';
import type { RegionEntry, RegionTree, RegionVersion } from '../../src-shared/schemas/region-api';
import type { AlphaRegionCheck } from '../services/order-service';
import { defaultRegionDataset, type RegionDataset, type RegionPath } from './region-dataset';
import { createRegionPayload, type RegionPayload } from './region-payload';

const payloads = new WeakMap<RegionDataset, RegionPayload>();

/** One payload per data set, so every service in a process shares the compressed bodies. */
function payloadOf(dataset: RegionDataset): RegionPayload {
  let payload = payloads.get(dataset);
  if (!payload) {
    payload = createRegionPayload(Buffer.from(JSON.stringify({ code: SUCCESS_CODE, msg: 'success', data: dataset.tree })));
    payloads.set(dataset, payload);
  }
  return payload;
}

/** A name as given, quoted, cut short: it comes from a query string. */
function quoted(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

function describePath(path: RegionPath): string {
  if (path.district && path.city && path.district.code !== path.city.code) {
    return `the district ${path.district.name} of ${path.province.name} ${path.city.name} (city code ${path.city.code})`;
  }
  if (path.city) return `the city ${path.city.name} of ${path.province.name} (province code ${path.province.code})`;
  return `the province ${path.province.name}`;
}

/** prov_id must be a province code and area_id a city code inside that province. */
export function createAlphaRegionCheck(dataset: RegionDataset): AlphaRegionCheck {
  return {
    check(provId, areaId) {
      const province = dataset.provinceByCode(provId);
      if (!province) {
        const path = dataset.lookupCode(provId);
        const hint = path ? `; it is ${describePath(path)}` : '';
        return { ok: false, message: `alpha_card_info.prov_id: ${provId} is not a province code${hint}` };
      }
      const city = dataset.cityByCode(areaId);
      if (city && city.province.code === province.code) return { ok: true, province: province.name, city: city.city.name };
      const path = dataset.lookupCode(areaId);
      const hint = path ? `; it is ${describePath(path)}` : '; no division has this code';
      return { ok: false, message: `alpha_card_info.area_id: ${areaId} is not a city of province ${province.code} (${province.name})${hint}` };
    },
  };
}

export function createRegionService(dataset: RegionDataset = defaultRegionDataset()) {
  const payload = payloadOf(dataset);
  const version: RegionVersion = Object.freeze({ etag: payload.etag, source: dataset.source, counts: dataset.counts });

  function requireProvince(name: string) {
    const province = dataset.province(name);
    if (!province) throw new AppError(ErrorCode.NOT_FOUND, `province: no province named ${quoted(name)}`);
    return province;
  }

  return {
    /** The whole tree in the spec's regionData shape (shared; do not mutate). */
    tree(): RegionTree {
      return dataset.tree;
    },
    /** Changes whenever the data does; the console caches the tree keyed by `etag`. */
    version(): RegionVersion {
      return version;
    },
    provinces(): readonly RegionEntry[] {
      return dataset.provinces;
    },
    cities(province: string): readonly RegionEntry[] {
      return requireProvince(province).cities;
    },
    districts(province: string, city: string): readonly RegionEntry[] {
      const p = requireProvince(province);
      const c = p.cityByName.get(city);
      if (!c) throw new AppError(ErrorCode.NOT_FOUND, `city: province ${province} has no city named ${quoted(city)}`);
      return c.districts;
    },
    /** Province, city and district a code names, if any. */
    lookupCode(code: string): RegionPath | undefined {
      return dataset.lookupCode(code);
    },
    /** The prepared regionData response (bytes, ETags, compressed bodies). */
    payload,
    alphaCheck: createAlphaRegionCheck(dataset),
  };
}
export type RegionService = ReturnType<typeof createRegionService>;

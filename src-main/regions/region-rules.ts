/**
 * The rules every region tree must keep (docs/regions.md). Checked by the
 * generator before it writes the data file, by the loader before the service
 * uses it, and by the tests.
 */
import type { RegionTree } from '../../src-shared/schemas/region-api';

/** 北京市, 天津市, 上海市, 重庆市: one city named like the province, code xx0100. */
export const MUNICIPALITY_CODES: readonly string[] = ['110000', '120000', '310000', '500000'];
/** Taiwan, Hong Kong, Macau: not part of the mainland tree. */
export const EXCLUDED_PROVINCE_CODES: readonly string[] = ['710000', '810000', '820000'];
export const PROVINCIAL_DIVISION_COUNT = 31;

/** Development zones and similar statistical-only units (`xxxx7x`), not administrative divisions. */
export function isStatisticalUnitCode(code: string): boolean {
  return /^[0-9]{4}7[0-9]$/.test(code);
}

export function isMunicipalityCode(provinceCode: string): boolean {
  return MUNICIPALITY_CODES.includes(provinceCode);
}

const SIX_DIGITS = /^[0-9]{6}$/;

/** Every broken rule as a sentence; empty when the tree is good. */
export function regionTreeProblems(tree: RegionTree): string[] {
  const problems: string[] = [];
  const seen = { province: new Set<string>(), city: new Set<string>(), district: new Set<string>() };
  const selfDistrictCodes = new Set<string>();

  const checkName = (name: string, where: string) => {
    if (name.length === 0 || name.trim() !== name) problems.push(`${where}: name ${JSON.stringify(name)} is empty or padded`);
    // Integer-like keys would be reordered by every JS engine, breaking code order.
    if (/^[0-9]+$/.test(name)) problems.push(`${where}: name ${JSON.stringify(name)} is numeric`);
  };
  const checkOrder = (codes: string[], where: string) => {
    for (let i = 1; i < codes.length; i++) {
      if (codes[i - 1]! >= codes[i]!) problems.push(`${where}: ${codes[i - 1]} and ${codes[i]} are not in code order`);
    }
  };
  const checkUnique = (level: keyof typeof seen, code: string, where: string) => {
    if (seen[level].has(code)) problems.push(`${where}: ${level} code ${code} is used twice`);
    seen[level].add(code);
  };

  const provinces = Object.entries(tree);
  if (provinces.length !== PROVINCIAL_DIVISION_COUNT) problems.push(`tree: ${provinces.length} provinces, expected ${PROVINCIAL_DIVISION_COUNT}`);
  checkOrder(
    provinces.map(([, p]) => p.val),
    'provinces',
  );

  for (const [provinceName, province] of provinces) {
    const pWhere = provinceName;
    checkName(provinceName, pWhere);
    const pCode = province.val;
    if (!/^[0-9]{2}0000$/.test(pCode)) problems.push(`${pWhere}: province code ${pCode} is not xx0000`);
    if (EXCLUDED_PROVINCE_CODES.includes(pCode)) problems.push(`${pWhere}: ${pCode} is not part of mainland China`);
    checkUnique('province', pCode, pWhere);
    const prefix = pCode.slice(0, 2);

    const cities = Object.entries(province.items);
    if (cities.length === 0) problems.push(`${pWhere}: has no cities`);
    checkOrder(
      cities.map(([, c]) => c.val),
      pWhere,
    );
    if (isMunicipalityCode(pCode)) {
      const [only] = cities;
      if (cities.length !== 1 || only![0] !== provinceName || only![1].val !== `${prefix}0100`) {
        problems.push(`${pWhere}: a municipality must have exactly one city named ${provinceName} with code ${prefix}0100`);
      }
    }

    for (const [cityName, city] of cities) {
      const cWhere = `${provinceName} ${cityName}`;
      checkName(cityName, cWhere);
      const cCode = city.val;
      checkUnique('city', cCode, cWhere);
      const districts = Object.entries(city.items);
      if (districts.length === 0) problems.push(`${cWhere}: has no districts`);
      checkOrder(
        districts.map(([, code]) => code),
        cWhere,
      );
      const isSelfOnly = districts.length === 1 && districts[0]![0] === cityName && districts[0]![1] === cCode;
      if (!SIX_DIGITS.test(cCode) || !cCode.startsWith(prefix) || cCode.endsWith('0000')) {
        problems.push(`${cWhere}: city code ${cCode} is not a 6-digit code inside province ${pCode}`);
      } else if (!cCode.endsWith('00') && !isSelfOnly) {
        // A county-level unit directly under the province: a city holding only itself.
        problems.push(`${cWhere}: city code ${cCode} is county-level, so its only district must be itself`);
      }

      for (const [districtName, dCode] of districts) {
        const dWhere = `${cWhere} ${districtName}`;
        checkName(districtName, dWhere);
        checkUnique('district', dCode, dWhere);
        if (!SIX_DIGITS.test(dCode) || !dCode.startsWith(prefix)) problems.push(`${dWhere}: district code ${dCode} is not inside province ${pCode}`);
        if (isStatisticalUnitCode(dCode)) problems.push(`${dWhere}: ${dCode} is a statistical-only unit`);
        if (dCode === cCode) {
          if (isSelfOnly) selfDistrictCodes.add(dCode);
          else problems.push(`${dWhere}: only a city's sole self-district may reuse the city code ${cCode}`);
        } else if (dCode.endsWith('00')) {
          problems.push(`${dWhere}: district code ${dCode} looks like a city code`);
        } else if (!isMunicipalityCode(pCode) && dCode.slice(0, 4) !== cCode.slice(0, 4)) {
          problems.push(`${dWhere}: district code ${dCode} is outside city ${cCode}`);
        }
      }
    }
  }

  // Across levels a code names one division; the only sharing is a city and its self-district.
  for (const code of seen.city) {
    if (seen.province.has(code)) problems.push(`code ${code} is both a province and a city`);
  }
  for (const code of seen.district) {
    if (seen.province.has(code)) problems.push(`code ${code} is both a province and a district`);
    if (seen.city.has(code) && !selfDistrictCodes.has(code)) problems.push(`code ${code} is both a city and a district`);
  }
  return problems;
}

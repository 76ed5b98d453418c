/**
 * The rule checker the generator and the loader rely on: silent on the
 * committed tree, and naming each broken rule on a damaged copy.
 */
import { describe, expect, it } from 'vitest';
import type { RegionTree } from '../../../src-shared/schemas/region-api';
import { createRegionDataset, defaultRegionDataset, RegionDataError } from '../../../src-main/regions/region-dataset';
import { isStatisticalUnitCode, regionTreeProblems } from '../../../src-main/regions/region-rules';

const good = (): RegionTree => structuredClone(defaultRegionDataset().tree);

/** Rebuilds an object with one key renamed, keeping the order. */
function renameKey<T>(obj: Record<string, T>, from: string, to: string): Record<string, T> {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k === from ? to : k, v]));
}

describe('regionTreeProblems', () => {
  it('finds nothing wrong with the committed tree', () => {
    expect(regionTreeProblems(good())).toEqual([]);
  });

  const cases: [string, (t: RegionTree) => RegionTree, string][] = [
    [
      'a missing province',
      (t) => {
        delete t['西藏自治区'];
        return t;
      },
      'tree: 30 provinces, expected 31',
    ],
    [
      'Hong Kong in place of a province',
      (t) => {
        delete t['西藏自治区'];
        return { ...t, 香港特别行政区: { val: '810000', items: { 香港: { val: '810100', items: { 中西区: '810101' } } } } };
      },
      '香港特别行政区: 810000 is not part of mainland China',
    ],
    [
      'a province without cities',
      (t) => {
        t['青海省']!.items = {};
        return t;
      },
      '青海省: has no cities',
    ],
    [
      'a city without districts',
      (t) => {
        t['湖北省']!.items['武汉市']!.items = {};
        return t;
      },
      '湖北省 武汉市: has no districts',
    ],
    [
      'a municipality whose city is still 市辖区',
      (t) => {
        t['北京市']!.items = renameKey(t['北京市']!.items, '北京市', '市辖区');
        return t;
      },
      '北京市: a municipality must have exactly one city named 北京市 with code 110100',
    ],
    [
      'a statistical-only unit',
      (t) => {
        t['江苏省']!.items['苏州市']!.items['苏州工业园区'] = '320576';
        return t;
      },
      '江苏省 苏州市 苏州工业园区: 320576 is a statistical-only unit',
    ],
    [
      'a county-level city holding more than itself',
      (t) => {
        t['湖北省']!.items['仙桃市']!.items['沔阳县'] = '429099';
        return t;
      },
      '湖北省 仙桃市: city code 429004 is county-level, so its only district must be itself',
    ],
    [
      'a district reusing its city code beside others',
      (t) => {
        t['湖北省']!.items['武汉市']!.items = { 武汉市: '420100', ...t['湖北省']!.items['武汉市']!.items };
        return t;
      },
      '湖北省 武汉市 武汉市: only a city\'s sole self-district may reuse the city code 420100',
    ],
    [
      'a code used twice at one level',
      (t) => {
        t['湖北省']!.items['武汉市']!.items['江岸区'] = '420103';
        return t;
      },
      '湖北省 武汉市 江汉区: district code 420103 is used twice',
    ],
    [
      'a district of another city',
      (t) => {
        t['湖北省']!.items['武汉市']!.items['黄州区'] = '421102';
        return t;
      },
      '湖北省 武汉市 黄州区: district code 421102 is outside city 420100',
    ],
    [
      'codes out of order',
      (t) => {
        const items = t['湖北省']!.items['武汉市']!.items;
        t['湖北省']!.items['武汉市']!.items = Object.fromEntries(Object.entries(items).reverse());
        return t;
      },
      '湖北省 武汉市: 420117 and 420116 are not in code order',
    ],
    [
      'a numeric name (JS would reorder it)',
      (t) => {
        t['湖北省']!.items['武汉市']!.items = renameKey(t['湖北省']!.items['武汉市']!.items, '江岸区', '1');
        return t;
      },
      '湖北省 武汉市 1: name "1" is numeric',
    ],
    [
      'a city code that is not inside its province',
      (t) => {
        t['湖北省']!.items['武汉市']!.val = '430100';
        return t;
      },
      '湖北省 武汉市: city code 430100 is not a 6-digit code inside province 420000',
    ],
  ];

  for (const [what, damage, problem] of cases) {
    it(`names ${what}`, () => {
      expect(regionTreeProblems(damage(good()))).toContain(problem);
    });
  }

  it('makes the loader refuse a damaged tree', () => {
    const tree = good();
    tree['青海省']!.items = {};
    expect(() => createRegionDataset({ source: defaultRegionDataset().source, tree })).toThrow(RegionDataError);
  });

  it('recognises statistical-only codes by their fifth digit', () => {
    expect(['320576', '620171', '130171'].map(isStatisticalUnitCode)).toEqual([true, true, true]);
    expect(['320508', '429004', '441900', '659001'].map(isStatisticalUnitCode)).toEqual([false, false, false, false]);
  });
});

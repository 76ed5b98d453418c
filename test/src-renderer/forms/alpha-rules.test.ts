import { describe, expect, it } from 'vitest';
import {
  cardInfoChecks,
  emptyCardInfo,
  emptyPersonalData,
  personalDataChecks,
  toAlphaCardInfo,
  toAlphaPersonalData,
  type CardInfoForm,
  type PersonalDataForm,
} from '../../../src-renderer/forms/alpha-rules';
import { checkAll } from '../../../src-renderer/forms/field-check';
import { alphaCardInfo, alphaPersonalData } from '../../../src-shared/schemas/merchant-api';
import { residentIdCheckChar } from '../../../src-shared/validation/rules';

/** A resident ID with a correct GB 11643 check character. */
function residentId(first17: string): string {
  return first17 + residentIdCheckChar(first17);
}
const VALID_ID = residentId('11010519491231002');
const WRONG_CHECK = VALID_ID.slice(0, 17) + (VALID_ID[17] === '0' ? '1' : '0');

function personal(overrides: Partial<PersonalDataForm> = {}): PersonalDataForm {
  return {
    ...emptyPersonalData(),
    name: '张三',
    cert_no: VALID_ID,
    cert_validity_type: '0',
    cert_begin_date: '20200101',
    cert_end_date: '20400101',
    mobile_no: '13800138000',
    ...overrides,
  };
}

const keysOf = (m: PersonalDataForm) => Object.fromEntries(Object.entries(checkAll(personalDataChecks, m)).map(([k, p]) => [k, p!.key]));

describe('alpha personal data rules', () => {
  it('accepts a complete, valid form and builds a body the service schema accepts', () => {
    expect(keysOf(personal())).toEqual({});
    expect(alphaPersonalData.safeParse(toAlphaPersonalData(personal())).success).toBe(true);
  });

  it('requires name, certificate number, start date and mobile', () => {
    expect(keysOf({ ...emptyPersonalData() })).toEqual({
      name: 'sellOrder.rules.nameRequired',
      cert_no: 'sellOrder.rules.certNoRequired',
      cert_begin_date: 'sellOrder.rules.beginRequired',
      cert_end_date: 'sellOrder.rules.endRequired',
      mobile_no: 'sellOrder.rules.mobileRequired',
    });
  });

  it.each([
    ['1101051949123100', 'sellOrder.rules.certNoFormat'],
    ['11010519491231002A', 'sellOrder.rules.certNoFormat'],
    [residentId('11010519490231002'), 'sellOrder.rules.certNoBirth'],
    [WRONG_CHECK, 'sellOrder.rules.certNoCheck'],
  ])('resident ID %s → %s', (certNo, key) => {
    expect(keysOf(personal({ cert_no: certNo }))).toEqual({ cert_no: key });
  });

  it('accepts a lower-case x check character and sends it upper-case', () => {
    // 11010519491231001 has check character X.
    const first17 = Array.from({ length: 1000 }, (_, i) => `110105194912310${String(i).padStart(2, '0')}`.slice(0, 17)).find(
      (s) => residentIdCheckChar(s) === 'X',
    )!;
    const form = personal({ cert_no: `${first17}x` });
    expect(keysOf(form)).toEqual({});
    expect(toAlphaPersonalData(form).cert_no).toBe(`${first17}X`);
  });

  it('needs an end date only when the certificate is not long-term, and omits it when long-term', () => {
    expect(keysOf(personal({ cert_validity_type: '0', cert_end_date: null }))).toEqual({ cert_end_date: 'sellOrder.rules.endRequired' });
    const longTerm = personal({ cert_validity_type: '1', cert_end_date: null });
    expect(keysOf(longTerm)).toEqual({});
    expect(toAlphaPersonalData(longTerm)).not.toHaveProperty('cert_end_date');
    // A stale end date left in the model is not sent for a long-term certificate either.
    expect(toAlphaPersonalData({ ...longTerm, cert_end_date: '20300101' })).not.toHaveProperty('cert_end_date');
    expect(alphaPersonalData.safeParse(toAlphaPersonalData({ ...longTerm, cert_end_date: '20300101' })).success).toBe(true);
  });

  it('refuses impossible dates and an end before the start', () => {
    expect(keysOf(personal({ cert_begin_date: '20230230' }))).toEqual({ cert_begin_date: 'sellOrder.rules.dateInvalid' });
    expect(keysOf(personal({ cert_end_date: '20231301' }))).toEqual({ cert_end_date: 'sellOrder.rules.dateInvalid' });
    expect(keysOf(personal({ cert_begin_date: '20200102', cert_end_date: '20200101' }))).toEqual({ cert_end_date: 'sellOrder.rules.endBeforeBegin' });
    expect(keysOf(personal({ cert_begin_date: '20240229', cert_end_date: '20240229' }))).toEqual({});
  });

  it.each(['1380013800', '138001380001', '12800138000', '2380013800a'])('mobile %s is refused', (mobile) => {
    expect(keysOf(personal({ mobile_no: mobile }))).toEqual({ mobile_no: 'sellOrder.rules.mobileFormat' });
  });

  it('checks optional e-mail and address only when given', () => {
    expect(keysOf(personal({ email: 'not-an-email' }))).toEqual({ email: 'sellOrder.rules.emailFormat' });
    expect(keysOf(personal({ email: 'a@b.cn', address: '北京市朝阳区' }))).toEqual({});
    expect(keysOf(personal({ address: 'x'.repeat(257) }))).toEqual({ address: 'sellOrder.rules.addressTooLong' });
    const body = toAlphaPersonalData(personal({ email: '  ', address: '' }));
    expect(body).not.toHaveProperty('email');
    expect(body).not.toHaveProperty('address');
  });

  it('agrees with the service schema on every case above', () => {
    const cases: PersonalDataForm[] = [
      personal(),
      personal({ cert_no: WRONG_CHECK }),
      personal({ cert_begin_date: '20230230' }),
      personal({ cert_begin_date: '20200102', cert_end_date: '20200101' }),
      personal({ mobile_no: '12800138000' }),
      personal({ cert_validity_type: '1', cert_end_date: null }),
    ];
    for (const form of cases) {
      const formOk = Object.keys(checkAll(personalDataChecks, form)).length === 0;
      expect(alphaPersonalData.safeParse(toAlphaPersonalData(form)).success, JSON.stringify(form)).toBe(formOk);
    }
  });
});

describe('alpha card info rules', () => {
  const regions = {
    isProvince: (code: string) => code === '110000' || code === '420000',
    isCityOf: (prov: string, city: string) => (prov === '110000' && city === '110100') || (prov === '420000' && city === '429004'),
  };
  const checks = cardInfoChecks(regions);
  const card = (o: Partial<CardInfoForm> = {}): CardInfoForm => ({ card_type: '1', card_name: '张三', card_no: '6222020200112233445', prov_id: '110000', area_id: '110100', ...o });
  const keys = (m: CardInfoForm) => Object.fromEntries(Object.entries(checkAll(checks, m)).map(([k, p]) => [k, p!.key]));

  it('accepts a valid card and builds a body the service schema accepts', () => {
    expect(keys(card())).toEqual({});
    expect(alphaCardInfo.safeParse(toAlphaCardInfo(card())).success).toBe(true);
  });

  it('requires every field', () => {
    expect(keys(emptyCardInfo())).toEqual({
      card_type: 'common.required',
      card_name: 'sellOrder.rules.cardNameRequired',
      card_no: 'sellOrder.rules.cardNoRequired',
      prov_id: 'sellOrder.rules.provinceRequired',
      area_id: 'sellOrder.rules.cityRequired',
    });
    expect(() => toAlphaCardInfo(emptyCardInfo())).toThrow();
  });

  it.each(['12345678901', '12345678901234567890', '6222-0202-0011-22'])('card number %j is refused', (no) => {
    expect(keys(card({ card_no: no }))).toEqual({ card_no: 'sellOrder.rules.cardNoFormat' });
  });

  it('needs a city inside the chosen province', () => {
    expect(keys(card({ area_id: '429004' }))).toEqual({ area_id: 'sellOrder.rules.cityRequired' });
    expect(keys(card({ prov_id: '420000', area_id: '429004' }))).toEqual({});
    expect(keys(card({ prov_id: '999999', area_id: null }))).toEqual({ prov_id: 'sellOrder.rules.provinceRequired', area_id: 'sellOrder.rules.cityRequired' });
  });
});

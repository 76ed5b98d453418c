import { describe, expect, it } from 'vitest';
import { JsonDecimal } from '../../../src-shared/json/lossless-json';
import { alphaCardInfo, alphaPersonalData, createOrderFields, orderQueryListBody } from '../../../src-shared/schemas/merchant-api';
import { parseOrThrow } from '../../../src-shared/validation/parse';
import { refusalMessage as message } from '../../support/schema-refusal';

const personal = {
  name: '张三',
  cert_type: '00',
  cert_no: '11010519491231002X',
  cert_validity_type: '0',
  cert_begin_date: '20200101',
  cert_end_date: '20400101',
  mobile_no: '13800138000',
};
const card = { card_type: '1', card_name: '张三', card_no: '6217000010001234567', prov_id: '110000', area_id: '110100' };
const buy = { order_type: 1, cny_amount: '100.50', paychannel_id: 3, paychannel_paymethod: 'alipay' };
const auth = { api_key: 'mk_x', timestamp: 1, nonce: 'abcdefgh', signature: 'S' };

describe('createOrder fields', () => {
  it('accepts a buy with the amount as text or as a JSON number, giving fen', () => {
    expect(parseOrThrow(createOrderFields, buy)).toMatchObject({ cny_amount: 10050 });
    expect(parseOrThrow(createOrderFields, { ...buy, cny_amount: new JsonDecimal('100.50') })).toMatchObject({ cny_amount: 10050 });
    expect(parseOrThrow(createOrderFields, { ...buy, cny_amount: 100 })).toMatchObject({ cny_amount: 10000 });
  });

  it.each([
    [{ ...buy, order_type: 3 }, 'order_type: must be 1 (buy) or 2 (sell)'],
    [{ ...buy, cny_amount: '0' }, 'cny_amount: must be greater than 0'],
    [{ ...buy, cny_amount: '-1' }, 'cny_amount: must be greater than 0'],
    [{ ...buy, cny_amount: new JsonDecimal('1.005') }, 'cny_amount: must have at most 2 decimal places'],
    [{ ...buy, cny_amount: new JsonDecimal('1e2') }, 'cny_amount: must be a decimal number of yuan such as 100.50'],
    [{ ...buy, cny_amount: true }, 'cny_amount: must be a decimal amount of yuan such as "100.50"'],
    [{ ...buy, cny_amount: undefined }, 'cny_amount: is required'],
    [{ ...buy, paychannel_id: new JsonDecimal('3.0') }, 'paychannel_id: must be an integer'],
    [{ ...buy, paychannel_id: '3' }, 'paychannel_id: must be an integer'],
    [{ ...buy, paychannel_id: 0 }, 'paychannel_id: must be at least 1'],
    [{ ...buy, paychannel_paymethod: 'visa' }, 'paychannel_paymethod: must be one of wxpay, alipay, bank'],
    [{ ...buy, extra: 1 }, 'extra: unknown parameter'],
    [{ ...buy, order_type: 2, customer_name: 'x' }, 'customer_name: unknown parameter'],
    [{ ...buy, alpha_card_info: card }, 'alpha_card_info: unknown parameter'],
    [{ ...buy, order_type: 2, alpha_card_info: { ...card, extra: 1 } }, 'alpha_card_info.extra: unknown parameter'],
  ])('%j → %s', (input, expected) => {
    expect(message(createOrderFields, input)).toBe(expected);
  });
});

describe('alpha_personal_data', () => {
  it('accepts a complete long-term and a dated certificate', () => {
    expect(message(alphaPersonalData, personal)).toBe('ok');
    const { cert_end_date: _omit, ...longTerm } = personal;
    expect(message(alphaPersonalData, { ...longTerm, cert_validity_type: '1' })).toBe('ok');
  });

  it.each([
    [{ cert_end_date: undefined }, 'cert_end_date: is required when cert_validity_type is 0'],
    [{ cert_validity_type: '1' }, 'cert_end_date: must be omitted when cert_validity_type is 1 (long-term)'],
    [{ cert_end_date: '20191231' }, 'cert_end_date: must not be before cert_begin_date'],
    [{ cert_begin_date: '20200230' }, 'cert_begin_date: must be a real date written YYYYMMDD'],
    [{ cert_validity_type: '2' }, 'cert_validity_type: must be one of 0, 1'],
    [{ cert_no: '110105194912310021' }, 'cert_no: has a wrong check digit (GB 11643)'],
    [{ cert_no: '1101051949' }, 'cert_no: must be an 18-character resident identity number (17 digits and a check digit or X)'],
    [{ cert_type: '0' }, 'cert_type: must be a two-digit certificate type such as 00'],
    [{ mobile_no: '1380013800' }, 'mobile_no: must be an 11-digit mainland mobile number'],
    [{ email: 'nope' }, 'email: must be an e-mail address'],
    [{ name: '   ' }, 'name: must be at least 1 characters'],
    [{ name: undefined }, 'name: is required'],
  ])('%j → %s', (patch, expected) => {
    expect(message(alphaPersonalData, { ...personal, ...patch })).toBe(expected);
  });
});

describe('alpha_personal_data free text', () => {
  it('trims surrounding whitespace before the printable-text rule, as docs/api.md says of every free-text field', () => {
    // A textarea's trailing newline is whitespace around the text, not a control character inside it.
    expect(parseOrThrow(alphaPersonalData, { ...personal, address: ' 北京市朝阳区\n' })).toMatchObject({ address: '北京市朝阳区' });
    expect(parseOrThrow(alphaPersonalData, { ...personal, name: ' 张三\t' })).toMatchObject({ name: '张三' });
    expect(message(alphaPersonalData, { ...personal, address: '北京市\n朝阳区' })).toBe(
      'address: must not contain control characters, bidirectional overrides or unpaired surrogates',
    );
  });
});

describe('alpha_card_info', () => {
  it.each([
    [{}, 'ok'],
    [{ card_type: '3' }, 'card_type: must be one of 0, 1, 2, 4'],
    [{ card_no: '123' }, 'card_no: must be 12-19 digits'],
    [{ prov_id: '11' }, 'prov_id: must be a 6-digit province code'],
    [{ area_id: 110100 }, 'area_id: must be a string'],
  ])('%j → %s', (patch, expected) => {
    expect(message(alphaCardInfo, { ...card, ...patch })).toBe(expected);
  });
});

describe('orderQueryList body', () => {
  it('applies defaults page 1, limit 20', () => {
    expect(parseOrThrow(orderQueryListBody, auth)).toMatchObject({ page: 1, limit: 20 });
  });

  it.each([
    [{ page: 0 }, 'page: must be at least 1'],
    [{ limit: 0 }, 'limit: must be at least 1'],
    [{ limit: 101 }, 'limit: must be at most 100'],
    [{ status: 'done' }, 'status: must be one of pending, paid, confirmed, completed, cancelled'],
    [{ order_type: 3 }, 'order_type: must be one of 1, 2'],
    [{ start_time: -1 }, 'start_time: must be at least 0'],
    [{ start_time: 10, end_time: 9 }, 'end_time: must not be before start_time'],
  ])('%j → %s', (patch, expected) => {
    expect(message(orderQueryListBody, { ...auth, ...patch })).toBe(expected);
  });
});

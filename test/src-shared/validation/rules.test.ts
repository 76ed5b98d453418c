import { describe, expect, it } from 'vitest';
import { isBankCardNumber, isMainlandMobile, isValidYmd, maskCardNumber, residentIdCheckChar, residentIdProblem } from '../../../src-shared/validation/rules';

describe('resident identity numbers (GB 11643)', () => {
  it.each([
    ['11010519491231002X', null],
    ['11010519491231002x', null], // lower-case x accepted
    ['440524198001010013', null],
    ['110105194912310021', 'check_digit'],
    ['11010519491331002X', 'birth_date'], // month 13
    ['11010520230229002X', 'birth_date'], // 2023 is no leap year
    ['1101051949123100', 'format'],
    ['11010519491231002Y', 'format'],
    ['A1010519491231002X', 'format'],
  ])('%s → %s', (id, problem) => {
    expect(residentIdProblem(id)).toBe(problem);
  });

  it('computes check characters', () => {
    expect(residentIdCheckChar('11010519491231002')).toBe('X');
    expect(residentIdCheckChar('44052419800101001')).toBe('3');
  });
});

describe('dates YYYYMMDD', () => {
  it.each([
    ['20200229', true],
    ['20210229', false],
    ['20001231', true],
    ['20001301', false],
    ['20000100', false],
    ['2000010', false],
    ['18991231', false],
    ['2000-01-01', false],
  ])('%s → %s', (d, ok) => {
    expect(isValidYmd(d)).toBe(ok);
  });
});

describe('mobile and card numbers', () => {
  it.each([
    ['13800138000', true],
    ['19912345678', true],
    ['12800138000', false],
    ['1380013800', false],
    ['138001380000', false],
    ['+8613800138000', false],
  ])('mobile %s → %s', (m, ok) => {
    expect(isMainlandMobile(m)).toBe(ok);
  });

  it.each([
    ['621700001000', true],
    ['6217000010001234567', true],
    ['62170000100', false],
    ['62170000100012345678', false],
    ['6217 0000 1000 1234', false],
  ])('card %s → %s', (c, ok) => {
    expect(isBankCardNumber(c)).toBe(ok);
  });

  it('masks all but the first 6 and last 4 digits', () => {
    expect(maskCardNumber('6217000010001234567')).toBe('621700*********4567');
    expect(maskCardNumber('12345678')).toBe('****5678');
  });
});

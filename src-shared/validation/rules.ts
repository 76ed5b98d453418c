/**
 * Field rules shared by the service (authoritative) and the console forms
 * (early feedback). Pure functions, no dependencies.
 */

/** YYYYMMDD naming a real calendar date (1900–2199). */
export function isValidYmd(value: string): boolean {
  const m = /^(19|20|21)(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (!m) return false;
  const year = Number(m[1]! + m[2]!);
  const month = Number(m[3]);
  const day = Number(m[4]);
  if (month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysInMonth;
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK_CHARS = '10X98765432';

/** The GB 11643-1999 check character of the first 17 digits. */
export function residentIdCheckChar(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * ID_WEIGHTS[i]!;
  return ID_CHECK_CHARS[sum % 11]!;
}

export type ResidentIdProblem = 'format' | 'birth_date' | 'check_digit';

/**
 * Why an 18-character mainland resident identity number is invalid, or null
 * when it is valid: 17 digits + check char (digit or X), a real birth date,
 * and the GB 11643 check character.
 */
export function residentIdProblem(value: string): ResidentIdProblem | null {
  if (!/^[0-9]{17}[0-9Xx]$/.test(value)) return 'format';
  if (!isValidYmd(value.slice(6, 14))) return 'birth_date';
  if (residentIdCheckChar(value.slice(0, 17)) !== value[17]!.toUpperCase()) return 'check_digit';
  return null;
}

export const RESIDENT_ID_PROBLEM_TEXT: Record<ResidentIdProblem, string> = {
  format: 'must be an 18-character resident identity number (17 digits and a check digit or X)',
  birth_date: 'must contain a valid birth date (digits 7-14)',
  check_digit: 'has a wrong check digit (GB 11643)',
};

/** An 11-digit mainland China mobile number. */
export function isMainlandMobile(value: string): boolean {
  return /^1[3-9][0-9]{9}$/.test(value);
}

export function isBankCardNumber(value: string): boolean {
  return /^[0-9]{12,19}$/.test(value);
}

export function isPlausibleEmail(value: string): boolean {
  return value.length <= 128 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}

/** Keeps the first 6 and last 4 digits of a card number visible. */
export function maskCardNumber(cardNo: string): string {
  if (cardNo.length <= 10) return cardNo.replace(/.(?=.{4})/g, '*');
  return cardNo.slice(0, 6) + '*'.repeat(cardNo.length - 10) + cardNo.slice(-4);
}

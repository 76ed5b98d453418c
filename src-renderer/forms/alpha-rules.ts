/**
 * The alpha sell order's personal-data and card-info forms: models, every
 * rule of the spec (end date only when not long-term, resident ID check
 * digit, mobile, real YYYYMMDD dates, card number, province/city), and the
 * request objects built from them. Rules come from src-shared/validation so
 * the form and the service agree.
 */
import { isBankCardNumber, isMainlandMobile, isPlausibleEmail, isValidYmd, residentIdProblem } from '../../src-shared/validation/rules';
import type { CardType, CertType, CertValidityType } from '../i18n/labels';
import { problem, type FormChecks } from './field-check';

export interface PersonalDataForm {
  name: string;
  cert_type: CertType;
  cert_no: string;
  cert_validity_type: CertValidityType;
  /** YYYYMMDD, or null while not chosen. */
  cert_begin_date: string | null;
  cert_end_date: string | null;
  mobile_no: string;
  email: string;
  address: string;
}

export interface CardInfoForm {
  card_type: CardType | null;
  card_name: string;
  card_no: string;
  /** Province code (6 digits) from the region tree. */
  prov_id: string | null;
  /** City code inside that province. */
  area_id: string | null;
}

export function emptyPersonalData(): PersonalDataForm {
  return {
    name: '',
    cert_type: '00',
    cert_no: '',
    cert_validity_type: '0',
    cert_begin_date: null,
    cert_end_date: null,
    mobile_no: '',
    email: '',
    address: '',
  };
}

export function emptyCardInfo(): CardInfoForm {
  return { card_type: null, card_name: '', card_no: '', prov_id: null, area_id: null };
}

export const NAME_MAX = 64;

/** Required by the spec (the form marks them). */
export const PERSONAL_REQUIRED = ['name', 'cert_no', 'cert_begin_date', 'cert_end_date', 'mobile_no'] as const;
export const CARD_REQUIRED = ['card_type', 'card_name', 'card_no', 'prov_id', 'area_id'] as const;
export const ADDRESS_MAX = 256;

export const personalDataChecks: FormChecks<PersonalDataForm> = {
  name: (m) => {
    const v = m.name.trim();
    if (v === '') return problem('sellOrder.rules.nameRequired');
    if (v.length > NAME_MAX) return problem('sellOrder.rules.tooLong', { max: NAME_MAX });
    return null;
  },
  cert_no: (m) => {
    const v = m.cert_no.trim();
    if (v === '') return problem('sellOrder.rules.certNoRequired');
    if (m.cert_type === '00') {
      switch (residentIdProblem(v)) {
        case 'format':
          return problem('sellOrder.rules.certNoFormat');
        case 'birth_date':
          return problem('sellOrder.rules.certNoBirth');
        case 'check_digit':
          return problem('sellOrder.rules.certNoCheck');
        case null:
          return null;
      }
    }
    return /^[A-Za-z0-9()-]{4,32}$/.test(v) ? null : problem('sellOrder.rules.certNoOther');
  },
  cert_begin_date: (m) => {
    if (m.cert_begin_date === null || m.cert_begin_date === '') return problem('sellOrder.rules.beginRequired');
    return isValidYmd(m.cert_begin_date) ? null : problem('sellOrder.rules.dateInvalid');
  },
  cert_end_date: (m) => {
    // Long-term certificates have no end date (the field is hidden and not sent).
    if (m.cert_validity_type === '1') return null;
    if (m.cert_end_date === null || m.cert_end_date === '') return problem('sellOrder.rules.endRequired');
    if (!isValidYmd(m.cert_end_date)) return problem('sellOrder.rules.dateInvalid');
    if (m.cert_begin_date && isValidYmd(m.cert_begin_date) && m.cert_end_date < m.cert_begin_date) {
      return problem('sellOrder.rules.endBeforeBegin');
    }
    return null;
  },
  mobile_no: (m) => {
    const v = m.mobile_no.trim();
    if (v === '') return problem('sellOrder.rules.mobileRequired');
    return isMainlandMobile(v) ? null : problem('sellOrder.rules.mobileFormat');
  },
  email: (m) => {
    const v = m.email.trim();
    return v === '' || isPlausibleEmail(v) ? null : problem('sellOrder.rules.emailFormat');
  },
  address: (m) => (m.address.trim().length > ADDRESS_MAX ? problem('sellOrder.rules.addressTooLong') : null),
};

/** `isProvince`/`isCityOf` come from the cached region tree. */
export interface RegionLookup {
  isProvince(code: string): boolean;
  isCityOf(provinceCode: string, cityCode: string): boolean;
}

export function cardInfoChecks(regions: RegionLookup): FormChecks<CardInfoForm> {
  return {
    card_type: (m) => (m.card_type === null ? problem('common.required') : null),
    card_name: (m) => {
      const v = m.card_name.trim();
      if (v === '') return problem('sellOrder.rules.cardNameRequired');
      if (v.length > NAME_MAX) return problem('sellOrder.rules.tooLong', { max: NAME_MAX });
      return null;
    },
    card_no: (m) => {
      const v = m.card_no.replace(/\s+/g, '');
      if (v === '') return problem('sellOrder.rules.cardNoRequired');
      return isBankCardNumber(v) ? null : problem('sellOrder.rules.cardNoFormat');
    },
    prov_id: (m) => (m.prov_id && regions.isProvince(m.prov_id) ? null : problem('sellOrder.rules.provinceRequired')),
    area_id: (m) => (m.prov_id && m.area_id && regions.isCityOf(m.prov_id, m.area_id) ? null : problem('sellOrder.rules.cityRequired')),
  };
}

/** The request object: trimmed, optional fields only when given, no end date for long-term certificates. */
export function toAlphaPersonalData(m: PersonalDataForm) {
  return {
    name: m.name.trim(),
    cert_type: m.cert_type,
    cert_no: m.cert_no.trim().toUpperCase(),
    cert_validity_type: m.cert_validity_type,
    cert_begin_date: m.cert_begin_date ?? '',
    ...(m.cert_validity_type === '0' && m.cert_end_date ? { cert_end_date: m.cert_end_date } : {}),
    mobile_no: m.mobile_no.trim(),
    ...(m.email.trim() ? { email: m.email.trim() } : {}),
    ...(m.address.trim() ? { address: m.address.trim() } : {}),
  };
}

export function toAlphaCardInfo(m: CardInfoForm) {
  // Only called after the checks passed: every choice is made.
  if (m.card_type === null || m.prov_id === null || m.area_id === null) throw new Error('card info is incomplete');
  return {
    card_type: m.card_type,
    card_name: m.card_name.trim(),
    card_no: m.card_no.replace(/\s+/g, ''),
    prov_id: m.prov_id,
    area_id: m.area_id,
  };
}

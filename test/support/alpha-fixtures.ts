/** Valid alpha sell objects (spec endpoint 4): tests vary one field at a time from these. */

/** A long-term resident ID (GB 11643 check digit valid), so no cert_end_date. */
export const ALPHA_PERSONAL = {
  name: '张三',
  cert_type: '00',
  cert_no: '11010519491231002X',
  cert_validity_type: '1',
  cert_begin_date: '20200101',
  mobile_no: '13800138000',
} as const;

/** Card fields other than the region codes. */
export const ALPHA_CARD_BASE = { card_type: '1', card_name: '张三', card_no: '6222020200112233445' } as const;

/** A card in 北京市 / 北京市 (province 110000, city 110100). */
export const ALPHA_CARD = { ...ALPHA_CARD_BASE, prov_id: '110000', area_id: '110100' } as const;

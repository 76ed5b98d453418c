import { describe, expect, it } from 'vitest';
import { appMessages, createAppI18n, SUPPORTED_LOCALES } from '../../../src-renderer/i18n';
import { AUDIT_ACTIONS, labelsFor } from '../../../src-renderer/i18n/labels';
import { ROLES } from '../../../src-shared/auth/permissions';
import { APPROVAL_CHANGE_KEYS, APPROVAL_KINDS, APPROVAL_STATES, AUDIT_ACTOR_KINDS } from '../../../src-shared/schemas/accounts';
import { ORDER_STATUSES, PAY_METHODS, CHANNEL_CATEGORIES } from '../../../src-shared/constants';

function leaves(obj: unknown, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
    if (typeof v === 'string') out[prefix + k] = v;
    else Object.assign(out, leaves(v, `${prefix}${k}.`));
  }
  return out;
}

describe('UI messages', () => {
  const zh = leaves(appMessages['zh-CN']);
  const en = leaves(appMessages['en-US']);

  it('has the same keys in every locale and no empty message', () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(zh).sort());
    for (const [key, text] of [...Object.entries(zh), ...Object.entries(en)]) expect(text.trim(), key).not.toBe('');
  });

  it('uses the same placeholders in both languages', () => {
    const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(zh)) expect(names(en[key]!), key).toEqual(names(zh[key]!));
  });

  it.each(SUPPORTED_LOCALES)('renders every %s message through vue-i18n without leftovers', (locale) => {
    const i18n = createAppI18n(locale);
    const t = i18n.global.t as (key: string, params?: Record<string, unknown>) => string;
    for (const [key, raw] of Object.entries(locale === 'zh-CN' ? zh : en)) {
      const params = Object.fromEntries([...raw.matchAll(/\{(\w+)\}/g)].map((m) => [m[1]!, `<${m[1]}>`]));
      const text = t(key, params);
      expect(text, key).not.toBe(key);
      expect(text, key).not.toMatch(/\{\w+\}/);
    }
  });

  it('labels every enum value, in both languages', () => {
    for (const locale of SUPPORTED_LOCALES) {
      const i18n = createAppI18n(locale);
      const labels = labelsFor((key, params) => (params ? i18n.global.t(key, params) : i18n.global.t(key)));
      for (const s of ORDER_STATUSES) expect(labels.orderStatus(s)).not.toContain('enums.');
      for (const m of PAY_METHODS) expect(labels.payMethod(m)).not.toContain('enums.');
      for (const c of CHANNEL_CATEGORIES) expect(labels.category(c)).not.toContain('enums.');
      expect(labels.orderStatus('pending', 1)).not.toBe(labels.orderStatus('pending', 2));
      for (const r of ROLES) expect(labels.role(r)).not.toContain('enums.');
      for (const k of APPROVAL_KINDS) expect(labels.approvalKind(k)).not.toContain('enums.');
      for (const st of APPROVAL_STATES) expect(labels.approvalState(st)).not.toContain('enums.');
      for (const a of AUDIT_ACTOR_KINDS) expect(labels.auditActor(a)).not.toContain('enums.');
      for (const a of AUDIT_ACTIONS) expect(labels.auditAction(a)).not.toContain('enums.');
    }
    const en = createAppI18n('en-US');
    const labels = labelsFor((key, params) => (params ? en.global.t(key, params) : en.global.t(key)));
    expect(labels.payMethods('wxpay,alipay')).toBe('WeChat Pay, Alipay');
    expect(labels.payMethod('paypal')).toBe('paypal');
    // An action this console has no label for (a newer service) is shown as the service wrote it.
    expect(labels.auditAction('merchant.renamed_in_future')).toBe('merchant.renamed_in_future');
    expect(labels.auditAction('toString')).toBe('toString');
    expect(labels.auditAction('balance.adjust')).toBe('Balance adjusted');
  });

  it("shows an approval request in the console's language: title from its kind and parameters, change labels, role names and which secret", () => {
    const zh = createAppI18n('zh-CN');
    const labels = labelsFor((key, params) => (params ? zh.global.t(key, params) : zh.global.t(key)));
    const role = { kind: 'account_role' as const, title: 'Role of Oscar (oscar): operator → finance', title_params: { account: 'Oscar', login: 'oscar', from_role: 'operator', to_role: 'finance' } };
    expect(labels.approvalTitle(role)).toBe('Oscar（oscar）的角色：运营 → 财务');
    const withdrawal = { kind: 'withdrawal' as const, title: 'x', title_params: { amount: '5000.00', merchant: 'Demo', channel: 'Sandbox beta' } };
    expect(labels.approvalTitle(withdrawal)).toBe('Demo 提现 5000.00 元（Sandbox beta 通道的提现单）');
    // A request from before the parameters existed shows the service's own title.
    expect(labels.approvalTitle({ kind: 'withdrawal', title: 'Withdrawal of 1.00 CNY', title_params: {} })).toBe('Withdrawal of 1.00 CNY');
    const line = { key: 'role' as const, label: 'role', before: 'operator', after: 'finance' };
    expect([labels.approvalChangeLabel(line), labels.approvalChangeValue(line, line.before), labels.approvalChangeValue(line, line.after)]).toEqual(['角色', '运营', '财务']);
    const secret = { key: 'api_secret' as const, label: 'api_secret', before: 'current', after: 'new' };
    expect(labels.approvalChangeValue(secret, 'new')).toBe('新密钥（仅向申请人显示一次）');
    const amount = { key: 'taken_from_available' as const, label: 'taken from available', before: null, after: '5065.00' };
    expect([labels.approvalChangeLabel(amount), labels.approvalChangeValue(amount, null), labels.approvalChangeValue(amount, '5065.00')]).toEqual(['从可用余额扣除', '—', '5065.00']);
    for (const key of APPROVAL_CHANGE_KEYS) {
      for (const locale of SUPPORTED_LOCALES) {
        const i18n = createAppI18n(locale);
        const l = labelsFor((k, p) => (p ? i18n.global.t(k, p) : i18n.global.t(k)));
        expect(l.approvalChangeLabel({ key, label: key, before: null, after: null })).not.toContain('approvals.');
      }
    }
  });
});

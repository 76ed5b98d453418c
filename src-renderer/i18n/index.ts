/**
 * Typed i18n: zh-CN (default) and en-US. `useT()` is the translation
 * function every component uses; its key parameter is the union of the
 * schema's leaf paths, so a mistyped or removed key fails the typecheck
 * (vue-i18n's own `t` accepts any string).
 */
import { createI18n, useI18n } from 'vue-i18n';
import { zhCN, type MessageSchema } from './messages/zh-CN';
import { enUS } from './messages/en-US';

export const SUPPORTED_LOCALES = ['zh-CN', 'en-US'] as const;
export type AppLocale = (typeof SUPPORTED_LOCALES)[number];
export const DEFAULT_LOCALE: AppLocale = 'zh-CN';

export const appMessages: Record<AppLocale, MessageSchema> = { 'zh-CN': zhCN, 'en-US': enUS };

/** 'app.title' | 'common.ok' | … — every leaf of the schema. */
export type MessageKey = Leaves<MessageSchema>;
type Leaves<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K}` : Leaves<T[K], `${P}${K}.`>;
}[keyof T & string];

export type MessageParams = Record<string, string | number>;
export type Translate = (key: MessageKey, params?: MessageParams) => string;

export function isAppLocale(value: unknown): value is AppLocale {
  return typeof value === 'string' && (SUPPORTED_LOCALES as readonly string[]).includes(value);
}

export function createAppI18n(locale: AppLocale = DEFAULT_LOCALE) {
  return createI18n({
    legacy: false,
    locale,
    fallbackLocale: DEFAULT_LOCALE,
    messages: appMessages,
    // Every key exists in both locales (typechecked); a miss is a bug, not something to warn about at runtime.
    missingWarn: false,
    fallbackWarn: false,
  });
}

export type AppI18n = ReturnType<typeof createAppI18n>;

export function useT(): Translate {
  const { t } = useI18n({ useScope: 'global' });
  return (key, params) => (params ? t(key, params) : t(key));
}

/** The locale of the global i18n instance, as a writable ref. */
export function useLocale() {
  return useI18n({ useScope: 'global' }).locale;
}

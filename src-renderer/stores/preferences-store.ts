/** UI preferences: language (persisted). Light/dark follows the OS (see App.vue). */
import { defineStore } from 'pinia';
import { watch } from 'vue';
import { DEFAULT_LOCALE, isAppLocale, useLocale, type AppLocale } from '../i18n';
import { readSetting, writeSetting } from '../utils/local-setting';

const LOCALE_KEY = 'mc.locale';

export function storedLocale(): AppLocale {
  return readSetting(LOCALE_KEY, isAppLocale, DEFAULT_LOCALE);
}

export const usePreferencesStore = defineStore('preferences', () => {
  const locale = useLocale();
  watch(
    locale,
    (value) => {
      writeSetting(LOCALE_KEY, value);
      document.documentElement.lang = value;
    },
    { immediate: true },
  );
  function setLocale(value: AppLocale): void {
    locale.value = value;
  }
  return { locale, setLocale };
});

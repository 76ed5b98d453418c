/** Clipboard copy with feedback; the desktop shell permits clipboard writes for its own origin. */
import { useMessage } from 'naive-ui';
import { useT } from '../i18n';

export function useCopy() {
  const message = useMessage();
  const t = useT();
  return async (text: string): Promise<void> => {
    try {
      await navigator.clipboard.writeText(text);
      message.success(t('common.copied'), { duration: 1500 });
    } catch {
      message.warning(t('common.copyFailed'));
    }
  };
}

/**
 * An action taken once the person confirms it in a warning dialog (sign out,
 * sign out everywhere, disable an account, reset a password or two-factor, a
 * new API secret, withdraw a request, connect to a team server): the confirm
 * button names the action (the title, unless told), spins while it runs, and
 * a failure is a toast with the service's message.
 */
import { useDialog } from 'naive-ui';
import { useT } from '../i18n';
import { useErrorToast } from './use-api-error';

export interface ConfirmOptions {
  title: string;
  content: string;
  /** Default: the title. */
  positiveText?: string;
  /** Default: Cancel. */
  negativeText?: string;
  action: () => Promise<unknown>;
}

export function useConfirm(): (options: ConfirmOptions) => void {
  const dialog = useDialog();
  const t = useT();
  const showError = useErrorToast();
  return (options) => {
    dialog.warning({
      title: options.title,
      content: options.content,
      positiveText: options.positiveText ?? options.title,
      negativeText: options.negativeText ?? t('common.cancel'),
      onPositiveClick: async () => {
        try {
          await options.action();
        } catch (err) {
          showError(err);
        }
      },
    });
  };
}

/**
 * The request an action filed instead of acting (a withdrawal, a balance
 * adjustment, a new API secret, new channel credentials, a role change): kept
 * to be shown (components/approval-pending.vue), and the inbox badge
 * refreshed at once, since the request now waits in someone's inbox.
 */
import { shallowRef } from 'vue';
import type { ApprovalView } from '../../src-shared/schemas/accounts';
import { useSessionStore } from '../stores/session-store';

export function usePendingApproval() {
  const session = useSessionStore();
  const pending = shallowRef<ApprovalView | null>(null);

  function filed(approval: ApprovalView): void {
    pending.value = approval;
    void session.refresh();
  }

  return { pending, filed };
}

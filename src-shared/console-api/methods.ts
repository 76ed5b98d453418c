/**
 * The names of every console-API call, and nothing else: the desktop
 * preload imports only this file (no zod, no schemas) to expose exactly the
 * contract. contract.ts checks at compile time that its map has exactly
 * these keys.
 */
export const CONSOLE_METHODS = [
  // any signed-in account
  'getServiceInfo',
  'getRegionData',
  'getSession',
  'changePassword',
  'beginTotpEnrolment',
  'confirmTotpEnrolment',
  'signOutEverywhere',
  // merchant-scoped (the request names merchant_id)
  'listPayChannels',
  'listOrders',
  'getOrder',
  'createOrder',
  'requestWithdrawal',
  'exportOrders',
  'getDashboardStats',
  'getBalances',
  'listLedger',
  'resendCallback',
  'simulateOrderOutcome',
  // administration
  'listMerchants',
  'createMerchant',
  'updateMerchant',
  'updateMerchantLimits',
  'updateMerchantDeveloperSettings',
  'rotateMerchantSecret',
  'revealRotatedSecret',
  'listChannels',
  'createChannel',
  'updateChannel',
  'changeChannelCredentials',
  'listChannelLinks',
  'linkChannel',
  'unlinkChannel',
  'listPaymentMethods',
  'addPaymentMethod',
  'setPaymentMethodEnabled',
  'adjustBalance',
  'cancelOrder',
  'getSettings',
  'updateListenerSettings',
  // accounts, approvals, audit
  'listAccounts',
  'createAccount',
  'updateAccount',
  'requestRoleChange',
  'resetAccountPassword',
  'resetAccountTotp',
  'listApprovals',
  'getApproval',
  'approveRequest',
  'rejectRequest',
  'cancelRequest',
  'listAuditLog',
] as const;

export type ConsoleMethod = (typeof CONSOLE_METHODS)[number];

/** IPC channel of a method: namespaced so nothing else can collide with it. */
export const CONSOLE_IPC_PREFIX = 'console-api:';

export function ipcChannelOf(method: ConsoleMethod): string {
  return CONSOLE_IPC_PREFIX + method;
}

/** The global under which the desktop preload exposes the IPC bridge (`window.consoleApi`). */
export const CONSOLE_BRIDGE_GLOBAL = 'consoleApi';

/** HTTP path of a method on the listener (browser transport). */
export const CONSOLE_HTTP_PREFIX = '/console-api/';

/** Browser transport only: ends the console session (POST, same-origin JSON like every console-API call). */
export const CONSOLE_LOGOUT_PATH = '/console/logout';

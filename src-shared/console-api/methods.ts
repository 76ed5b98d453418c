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

/** Browser transport: sign-in (name and password, then the TOTP code), first-owner setup, password links (POST, same-origin JSON). */
export const CONSOLE_SIGN_IN_PATH = '/console/sign-in';
export const CONSOLE_SIGN_IN_TOTP_PATH = '/console/sign-in/totp';
export const CONSOLE_SETUP_PATH = '/console/setup';
export const CONSOLE_PASSWORD_LINK_PATH = '/console/password';

/** The console's own routes that one-time links open (hash routes: the token stays in the fragment, out of every server and proxy log). */
export type ConsoleLinkRoute = 'setup' | 'set-password';

/** A one-time link into the browser console: the first-owner setup, or setting an account's password. */
export function consoleLinkUrl(baseUrl: string, route: ConsoleLinkRoute, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/console/#/${route}?token=${encodeURIComponent(token)}`;
}

/**
 * The desktop shell's own calls (not the service's: the Electron main process
 * answers them): which store the app uses, switching to a team server and
 * back, and the app lock. The preload exposes them as `window.desktopShell`
 * (desktop-shell-contract.ts has their schemas).
 */
export const DESKTOP_SHELL_METHODS = ['getDesktopMode', 'connectToTeamServer', 'switchToLocal', 'unlockApp', 'lockApp', 'setAppLock', 'removeAppLock'] as const;
export type DesktopShellMethod = (typeof DESKTOP_SHELL_METHODS)[number];

/** What a team server's console page in the desktop window may call: where it is, and the way back to the local store. */
export const TEAM_PAGE_SHELL_METHODS: readonly DesktopShellMethod[] = ['getDesktopMode', 'switchToLocal'];

export const DESKTOP_SHELL_GLOBAL = 'desktopShell';

/** Passed to a team server's console page (webPreferences.additionalArguments): its preload exposes only TEAM_PAGE_SHELL_METHODS. */
export const TEAM_PAGE_ARGUMENT = '--merchant-console-team-page';
export const DESKTOP_SHELL_IPC_PREFIX = 'desktop-shell:';

export function desktopShellChannelOf(method: DesktopShellMethod): string {
  return DESKTOP_SHELL_IPC_PREFIX + method;
}

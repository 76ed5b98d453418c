/**
 * How the console window is locked down (Electron's security checklist;
 * docs/security.md maps every item to the code here): its webPreferences,
 * what its web contents may navigate to or open, and which permission
 * requests its session grants. Only types come from electron, so the
 * policies are tested without an Electron runtime.
 */
import type { Session, WebContents, WebPreferences } from 'electron';
import { isOpenableExternally, isPermissionGranted, isTrustedUrl } from './content-security';

export interface ConsoleWindowPolicy {
  /** Origins of the console's own pages (app://console; the dev server in `npm run dev`). */
  trustedOrigins: readonly string[];
  /** Hands a vetted http(s) URL to the OS (shell.openExternal). */
  openExternal(url: string): void;
  /** Reports what was refused (never page content). */
  log?(line: string): void;
}

/** The console window's webPreferences: every checklist setting spelled out, not left to defaults. */
export function consoleWebPreferences(preloadPath: string, options: { devTools: boolean }): WebPreferences {
  return {
    preload: preloadPath,
    sandbox: true,
    contextIsolation: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
    devTools: options.devTools,
  };
}

/** Opens a URL in the system browser when it is http(s); anything else is dropped. Returns whether it was opened. */
export function openIfExternal(url: string, policy: ConsoleWindowPolicy): boolean {
  if (!isOpenableExternally(url)) {
    policy.log?.(`refused to open a non-http(s) URL (${url.slice(0, 16)}…)`);
    return false;
  }
  policy.openExternal(url);
  return true;
}

/**
 * Applied to every web contents the app creates (app 'web-contents-created'):
 * no new windows (http(s) targets go to the system browser instead), no
 * navigation away from the console's origin (an http(s) link clicked in the
 * page also goes to the system browser), no redirects elsewhere, no
 * <webview>.
 */
export function hardenWebContents(contents: WebContents, policy: ConsoleWindowPolicy): void {
  contents.setWindowOpenHandler(({ url }) => {
    openIfExternal(url, policy);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => {
    if (isTrustedUrl(event.url, policy.trustedOrigins)) return;
    event.preventDefault();
    openIfExternal(event.url, policy);
  });
  // Sub-frames (the console has none) may not navigate anywhere but the console.
  contents.on('will-frame-navigate', (event) => {
    if (event.isMainFrame || isTrustedUrl(event.url, policy.trustedOrigins)) return;
    event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (isTrustedUrl(event.url, policy.trustedOrigins)) return;
    event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
  });
}

/**
 * Permission handlers of the session the console uses: refuse every
 * request and check except those in GRANTED_PERMISSIONS from the console's
 * own origin; refuse device (HID/USB/serial) access outright.
 */
export function installSessionPolicy(session: Session, policy: ConsoleWindowPolicy): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) => {
    const granted = isPermissionGranted(permission, details.requestingUrl, policy.trustedOrigins);
    if (!granted) policy.log?.(`refused permission request: ${permission}`);
    callback(granted);
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => isPermissionGranted(permission, requestingOrigin, policy.trustedOrigins));
  session.setDevicePermissionHandler(() => false);
}

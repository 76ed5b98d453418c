/**
 * Schemas of the desktop shell's calls (methods.ts DESKTOP_SHELL_METHODS;
 * docs/desktop.md, "Team server" and "App lock"). Answers are envelopes like
 * the console API's; the main process validates every request.
 */
import { z } from 'zod';
import { passwordField } from '../schemas/accounts';
import type { DesktopShellMethod } from './methods';

/** A team server's address: https, or http on this machine only (a test server); no credentials, query or fragment. */
export const teamServerUrlField = z
  .string()
  .trim()
  .max(2048)
  .transform((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an address such as https://console.example.com' });
      return z.NEVER;
    }
    const loopback = /^(localhost|127\.0\.0\.1|\[::1\])$/.test(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
      ctx.addIssue({ code: 'custom', message: 'must be an https:// address (http:// only for a server on this computer)' });
      return z.NEVER;
    }
    if (url.username || url.password || url.search || url.hash) {
      ctx.addIssue({ code: 'custom', message: 'must not contain a user name, password, query or fragment' });
      return z.NEVER;
    }
    // The console lives at /console/ below the address (a proxy may put the whole service under a path).
    return url.href.replace(/\/+$/, '').replace(/\/console$/, '');
  });

export const desktopModeView = z.object({
  /** local: this computer's own store; team: a team server's console. */
  mode: z.enum(['local', 'team']),
  /** The team server remembered by this desktop (also while local), or null. */
  team_server_url: z.string().nullable(),
  /** Local store only: whether the app lock is set, and whether the app is locked now. */
  app_lock: z.object({ enabled: z.boolean(), locked: z.boolean() }),
});
export type DesktopModeView = z.infer<typeof desktopModeView>;

const noParams = z.strictObject({});

export const desktopShellContract = {
  getDesktopMode: { request: noParams, response: desktopModeView },
  /** Remembers the server and restarts the app against it (the local service is not started then). */
  connectToTeamServer: { request: z.strictObject({ url: teamServerUrlField }), response: desktopModeView },
  /** Back to this computer's store: restarts the app on it (the team server stays remembered). */
  switchToLocal: { request: noParams, response: desktopModeView },
  unlockApp: { request: z.strictObject({ password: z.string().min(1, { error: 'is required' }).max(256) }), response: desktopModeView },
  lockApp: { request: noParams, response: desktopModeView },
  /** Sets (or changes) the app lock's password: the owner's password on this computer. */
  setAppLock: { request: z.strictObject({ password: passwordField }), response: desktopModeView },
  removeAppLock: { request: z.strictObject({ password: z.string().min(1, { error: 'is required' }).max(256) }), response: desktopModeView },
} satisfies Record<DesktopShellMethod, { request: z.ZodType; response: z.ZodType }>;

export type DesktopShellRequest<M extends DesktopShellMethod> = z.input<(typeof desktopShellContract)[M]['request']>;
export type DesktopShellResponse<M extends DesktopShellMethod> = z.output<(typeof desktopShellContract)[M]['response']>;

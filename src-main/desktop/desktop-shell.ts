/**
 * The desktop shell's own calls (src-shared/console-api/desktop-shell-contract.ts;
 * docs/desktop.md): which store this desktop uses — its own (local) or a team
 * server's console, remembered per desktop in `desktop-mode.json` in the data
 * dir — and the optional app lock of the local store, which is the password
 * of the store's owner account (the person at the computer). Switching
 * restarts the app in the other mode. No electron import: desktop-app.ts
 * wires these to ipcMain and app.relaunch; tests call them directly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { AppError, ErrorCode, type Envelope } from '../../src-shared/errors';
import { desktopShellChannelOf, DESKTOP_SHELL_METHODS, TEAM_PAGE_SHELL_METHODS, type DesktopShellMethod } from '../../src-shared/console-api/methods';
import { desktopShellContract, type DesktopModeView, type DesktopShellResponse } from '../../src-shared/console-api/desktop-shell-contract';
import { parseOrThrow } from '../../src-shared/validation/parse';
import { hashPassword, verifyPassword } from '../auth/password-hash';
import { errorEnvelope, internalError, successEnvelope } from '../http/envelope';
import type { MerchantConsoleService } from '../service';
import { NO_PASSWORD } from '../services/account-service';
import type { AuditActor } from '../services/audit-service';
import { writeOwnerOnlyFile } from '../store/owner-only';
import { isTrustedUrl, originOf } from './content-security';

export const DESKTOP_MODE_FILE = 'desktop-mode.json';

export interface StoredDesktopMode {
  mode: 'local' | 'team';
  team_server_url: string | null;
}

const storedModeSchema = z.object({ mode: z.enum(['local', 'team']), team_server_url: z.string().nullable() });

/** The mode this desktop starts in: local unless a team server was chosen (an unreadable file counts as local). */
export function readDesktopMode(dataDir: string): StoredDesktopMode {
  try {
    const parsed = storedModeSchema.safeParse(JSON.parse(fs.readFileSync(path.join(dataDir, DESKTOP_MODE_FILE), 'utf8')));
    if (parsed.success && (parsed.data.mode === 'local' || parsed.data.team_server_url)) return parsed.data;
  } catch {
    // no file yet, or unreadable: the local store
  }
  return { mode: 'local', team_server_url: null };
}

export function writeDesktopMode(dataDir: string, mode: StoredDesktopMode): void {
  writeOwnerOnlyFile(path.join(dataDir, DESKTOP_MODE_FILE), `${JSON.stringify(mode)}\n`);
}

/** Wrong app-lock passwords before the next try must wait, and for how long (seconds). */
export const UNLOCK_FREE_FAILURES = 5;
export const UNLOCK_WAIT_SECONDS = 30;

export interface DesktopShellDeps {
  dataDir: string;
  /** The mode this run started in. */
  mode: StoredDesktopMode;
  /** Local mode: the store and its owner account (the app lock is the owner's password). */
  local?: { service: MerchantConsoleService; ownerId: number; ownerLogin: string };
  /** Restarts the app (after the answer went out). */
  relaunch(): void;
  now?: () => number;
}

export type DesktopShellHandlers = { [M in DesktopShellMethod]: (request: z.output<(typeof desktopShellContract)[M]['request']>) => Promise<DesktopShellResponse<M>> };

export function createDesktopShell(deps: DesktopShellDeps) {
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));
  let remembered = deps.mode;
  let enabled = false;
  let locked = false;
  let failures = 0;
  let waitUntil = 0;

  const local = deps.local;
  const actor: AuditActor | null = local ? { kind: 'desktop', accountId: local.ownerId, login: local.ownerLogin, role: 'owner' } : null;

  function view(): DesktopModeView {
    return { mode: deps.mode.mode, team_server_url: remembered.team_server_url, app_lock: { enabled, locked } };
  }

  function requireLocal() {
    if (!local || !actor) throw new AppError(ErrorCode.CONFLICT, "the app lock belongs to this computer's store; a team server has its own sign-in");
    return { local, actor };
  }

  async function ownerHash(): Promise<string> {
    const { local: l } = requireLocal();
    return (await l.service.store.read((tx) => l.service.services.accounts.require(tx, l.ownerId))).password_hash;
  }

  async function checkPassword(password: string): Promise<void> {
    const { local: l, actor: a } = requireLocal();
    if (now() < waitUntil) throw new AppError(ErrorCode.SIGN_IN_THROTTLED, `app lock: too many wrong passwords; try again in ${waitUntil - now()} s`, { retryAfter: waitUntil - now() });
    if (await verifyPassword(password, await ownerHash())) {
      failures = 0;
      return;
    }
    failures++;
    if (failures >= UNLOCK_FREE_FAILURES) waitUntil = now() + UNLOCK_WAIT_SECONDS;
    await l.service.store.write((tx) => l.service.services.audit.record(tx, a, { action: 'desktop.unlock_fail', target: 'app lock' }));
    throw new AppError(ErrorCode.SIGN_IN_FAILED, 'password: is not the app lock password');
  }

  /** Remembers the mode and restarts in it, once this answer went out. */
  function switchTo(next: StoredDesktopMode): DesktopModeView {
    writeDesktopMode(deps.dataDir, next);
    remembered = next;
    setTimeout(() => deps.relaunch(), 50);
    return { ...view(), mode: next.mode };
  }

  const handlers: DesktopShellHandlers = {
    getDesktopMode: async () => view(),
    connectToTeamServer: async ({ url }) => switchTo({ mode: 'team', team_server_url: url }),
    switchToLocal: async () => switchTo({ mode: 'local', team_server_url: remembered.team_server_url }),
    unlockApp: async ({ password }) => {
      const { local: l, actor: a } = requireLocal();
      if (!enabled) return view();
      await checkPassword(password);
      locked = false;
      await l.service.store.write((tx) => l.service.services.audit.record(tx, a, { action: 'desktop.unlock', target: 'app lock' }));
      return view();
    },
    lockApp: async () => {
      requireLocal();
      if (enabled) locked = true;
      return view();
    },
    setAppLock: async ({ password }) => {
      const { local: l, actor: a } = requireLocal();
      if (locked) throw new AppError(ErrorCode.AUTH_CONSOLE_SESSION, 'the app is locked: unlock it first');
      const hash = await hashPassword(password);
      await l.service.store.write(async (tx) => {
        await l.service.services.accounts.setPassword(tx, a, l.ownerId, hash);
        await l.service.services.audit.record(tx, a, { action: enabled ? 'desktop.app_lock_change' : 'desktop.app_lock_set', target: 'app lock' });
      });
      enabled = true;
      return view();
    },
    removeAppLock: async ({ password }) => {
      const { local: l, actor: a } = requireLocal();
      if (!enabled) return view();
      await checkPassword(password);
      await l.service.store.write(async (tx) => {
        await l.service.services.accounts.setPassword(tx, a, l.ownerId, NO_PASSWORD);
        await l.service.services.audit.record(tx, a, { action: 'desktop.app_lock_remove', target: 'app lock' });
      });
      enabled = false;
      locked = false;
      return view();
    },
  };

  return {
    handlers,
    /** Reads whether the lock is set (the owner has a password); a set lock starts locked. */
    async init(): Promise<void> {
      if (!local) return;
      enabled = (await ownerHash()) !== NO_PASSWORD;
      locked = enabled;
    },
    /** While locked, the window's console calls have no caller (they answer "locked"). */
    locked: () => locked,
  };
}
export type DesktopShell = ReturnType<typeof createDesktopShell>;

/** One guarded shell call: a main frame of the console (app://console), or the team server's page for the two calls it may make. */
export async function guardedShellCall(
  handlers: DesktopShellHandlers,
  method: DesktopShellMethod,
  event: Pick<IpcMainInvokeEvent, 'senderFrame'>,
  args: unknown[],
  origins: { console: readonly string[]; teamServer: string | null },
): Promise<Envelope<unknown>> {
  const frame = event.senderFrame;
  const url = frame?.url ?? '';
  const fromConsole = !!frame && frame.parent === null && isTrustedUrl(url, origins.console);
  const fromTeamPage = !!frame && frame.parent === null && origins.teamServer !== null && originOf(url) === originOf(origins.teamServer) && TEAM_PAGE_SHELL_METHODS.includes(method);
  if (!fromConsole && !fromTeamPage) return errorEnvelope(new AppError(ErrorCode.FOREIGN_ORIGIN, 'sender: desktop calls are accepted only from the console window'));
  try {
    if (args.length > 1) throw new AppError(ErrorCode.VALIDATION, 'request: a desktop call takes one request object');
    const spec = desktopShellContract[method];
    const request = parseOrThrow(spec.request, args[0] ?? {}, 'request');
    return successEnvelope(await (handlers[method] as (r: unknown) => Promise<unknown>)(request));
  } catch (err) {
    if (err instanceof AppError) return errorEnvelope(err);
    return errorEnvelope(internalError());
  }
}

/** Registers every shell call; returns the function that removes them. */
export function registerDesktopShellIpc(
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>,
  handlers: DesktopShellHandlers,
  origins: { console: readonly string[]; teamServer: string | null },
): () => void {
  for (const method of DESKTOP_SHELL_METHODS) {
    ipcMain.handle(desktopShellChannelOf(method), (event, ...args: unknown[]) => guardedShellCall(handlers, method, event, args, origins));
  }
  return () => {
    for (const method of DESKTOP_SHELL_METHODS) ipcMain.removeHandler(desktopShellChannelOf(method));
  };
}

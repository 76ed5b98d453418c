/**
 * The browser console's calls before a session exists (docs/accounts.md,
 * "Sign-in"): name and password, the TOTP code, the first owner's setup, a
 * password from a one-time link, and sign-out. Same-origin JSON POSTs like
 * the console API; the listener (src-main/http/console-routes.ts) and the
 * renderer's client (client.ts) both derive from this map.
 */
import { z } from 'zod';
import { passwordLinkInput, setupInput, signInInput, signInTotpInput, signInView } from '../schemas/accounts';
import { CONSOLE_LOGOUT_PATH, CONSOLE_PASSWORD_LINK_PATH, CONSOLE_SETUP_PATH, CONSOLE_SIGN_IN_PATH, CONSOLE_SIGN_IN_TOTP_PATH } from './methods';

export const signInContract = {
  signIn: { path: CONSOLE_SIGN_IN_PATH, request: signInInput, response: signInView },
  signInTotp: { path: CONSOLE_SIGN_IN_TOTP_PATH, request: signInTotpInput, response: signInView },
  setup: { path: CONSOLE_SETUP_PATH, request: setupInput, response: signInView },
  setPassword: { path: CONSOLE_PASSWORD_LINK_PATH, request: passwordLinkInput, response: z.object({ password_set: z.literal(true) }) },
  signOut: { path: CONSOLE_LOGOUT_PATH, request: z.strictObject({}), response: z.null() },
} as const;

export type SignInCall = keyof typeof signInContract;
export type SignInRequest<C extends SignInCall> = z.input<(typeof signInContract)[C]['request']>;
export type SignInResponse<C extends SignInCall> = z.output<(typeof signInContract)[C]['response']>;
/** The browser's side: one async function per call (ConsoleApiError when refused). */
export type SignInApi = { [C in SignInCall]: (request: SignInRequest<C>) => Promise<SignInResponse<C>> };

/**
 * The renderer's console API, built from a transport "bridge" that returns
 * envelopes: the desktop preload's `window.consoleApi` (IPC) or the HTTP
 * bridge for the browser console. Failures become ConsoleApiError with the
 * service's code and message, so the UI can show the server's words.
 */
import type { Envelope } from '../errors';
import { SUCCESS_CODE } from '../errors';
import type { ConsoleApi, ConsoleRequest, ConsoleResponse } from './contract';
import { CONSOLE_HTTP_PREFIX, CONSOLE_METHODS, type ConsoleMethod } from './methods';
import { signInContract, type SignInApi, type SignInCall } from './sign-in-contract';

/** What a transport provides: per method, request in, envelope out. */
export type ConsoleBridge = {
  [M in ConsoleMethod]: (request: ConsoleRequest<M>) => Promise<Envelope<ConsoleResponse<M> | null>>;
};

export class ConsoleApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ConsoleApiError';
  }

  /** The field named at the start of a validation message (`cny_amount: …`), if any. */
  get field(): string | undefined {
    const m = /^([A-Za-z_][A-Za-z0-9_.]*): /.exec(this.message);
    return m?.[1];
  }
}

/** Transport failures (service unreachable) get this code. */
export const TRANSPORT_ERROR_CODE = -1;

/** One bridge call as a promise of its data: a transport failure or a refusal becomes a ConsoleApiError. */
export function unwrapEnvelope(call: (request: unknown) => Promise<Envelope<unknown>>): (request: unknown) => Promise<unknown> {
  return async (request) => {
    let envelope: Envelope<unknown>;
    try {
      envelope = await call(request);
    } catch (err) {
      throw new ConsoleApiError(TRANSPORT_ERROR_CODE, err instanceof Error ? err.message : String(err));
    }
    if (envelope.code !== SUCCESS_CODE) throw new ConsoleApiError(envelope.code, envelope.msg);
    return envelope.data;
  };
}

export function createConsoleApi(bridge: ConsoleBridge): ConsoleApi {
  const api = {} as Record<ConsoleMethod, (request: unknown) => Promise<unknown>>;
  for (const method of CONSOLE_METHODS) api[method] = unwrapEnvelope(bridge[method] as (request: unknown) => Promise<Envelope<unknown>>);
  return api as ConsoleApi;
}

/**
 * A console POST as the listener accepts it (src-main/http/console-routes.ts): same-origin with the
 * session cookie, a JSON body (the browser adds the Origin the CSRF check compares).
 */
async function postJson(fetchImpl: typeof fetch, url: string, body: unknown): Promise<Envelope<unknown>> {
  const res = await fetchImpl(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  return (await res.json()) as Envelope<unknown>;
}

/** The browser transport: POST /console-api/<method> with the session cookie. */
export function createHttpConsoleBridge(baseUrl = '', fetchImpl: typeof fetch = (...args) => fetch(...args)): ConsoleBridge {
  const bridge = {} as Record<ConsoleMethod, (request: unknown) => Promise<Envelope<unknown>>>;
  for (const method of CONSOLE_METHODS) {
    bridge[method] = (request) => postJson(fetchImpl, `${baseUrl}${CONSOLE_HTTP_PREFIX}${method}`, request);
  }
  return bridge as ConsoleBridge;
}

/**
 * The browser's calls before (and to end) a session: sign-in, the TOTP code, first-owner setup, a
 * password from a one-time link, sign-out (sign-in-contract.ts). Each throws ConsoleApiError with the
 * service's code and message (or TRANSPORT_ERROR_CODE) when refused.
 */
export function createHttpSignInApi(baseUrl = '', fetchImpl: typeof fetch = (...args) => fetch(...args)): SignInApi {
  const api = {} as Record<SignInCall, (request: unknown) => Promise<unknown>>;
  for (const call of Object.keys(signInContract) as SignInCall[]) {
    api[call] = async (request) => {
      let envelope: Envelope<unknown>;
      try {
        envelope = await postJson(fetchImpl, `${baseUrl}${signInContract[call].path}`, request);
      } catch (err) {
        throw new ConsoleApiError(TRANSPORT_ERROR_CODE, err instanceof Error ? err.message : String(err));
      }
      if (envelope.code !== SUCCESS_CODE) throw new ConsoleApiError(envelope.code, envelope.msg);
      return envelope.data;
    };
  }
  return api as SignInApi;
}

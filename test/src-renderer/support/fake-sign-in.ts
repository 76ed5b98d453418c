/**
 * The browser's sign-in calls for component tests: each answers from a
 * handler the test supplies (an answer, or a ServiceError thrown as the
 * client throws it) and records its requests. A browser handle over a fake
 * bridge and these: `browserHandle(bridge, signIn)`.
 */
import { handleOver, type ConsoleApiHandle } from '../../../src-renderer/api/console-api';
import { ConsoleApiError, type ConsoleBridge } from '../../../src-shared/console-api/client';
import type { SignInApi, SignInCall, SignInRequest, SignInResponse } from '../../../src-shared/console-api/sign-in-contract';
import { ServiceError } from './fake-bridge';

export type SignInHandlers = {
  [C in SignInCall]?: (request: SignInRequest<C>) => SignInResponse<C> | ServiceError | Promise<SignInResponse<C> | ServiceError>;
};

export interface FakeSignIn {
  api: SignInApi;
  calls: { call: SignInCall; request: unknown }[];
  callsOf<C extends SignInCall>(call: C): SignInRequest<C>[];
}

const CALLS: SignInCall[] = ['signIn', 'signInTotp', 'setup', 'setPassword', 'signOut'];

export function fakeSignIn(handlers: SignInHandlers): FakeSignIn {
  const calls: { call: SignInCall; request: unknown }[] = [];
  const api = {} as Record<SignInCall, (request: unknown) => Promise<unknown>>;
  for (const call of CALLS) {
    api[call] = async (request) => {
      calls.push({ call, request });
      const handler = handlers[call] as ((r: unknown) => unknown) | undefined;
      if (!handler) throw new ConsoleApiError(5000, `test: no fake for ${call}`);
      const result = await handler(request);
      if (result instanceof ServiceError) throw new ConsoleApiError(result.code, result.msg);
      return result;
    };
  }
  return {
    api: api as SignInApi,
    calls,
    callsOf: <C extends SignInCall>(call: C) => calls.filter((c) => c.call === call).map((c) => c.request as SignInRequest<C>),
  };
}

export function browserHandle(bridge: ConsoleBridge, signIn: FakeSignIn): ConsoleApiHandle {
  return handleOver(bridge, signIn.api);
}

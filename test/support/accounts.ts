/**
 * Staff accounts for tests, made the way the service makes them: a real
 * scrypt hash, a real TOTP secret enrolled with a real code (otpauth), and
 * callers or signed-in HTTP sessions for them.
 */
import { ROLES, type Role } from '../../src-shared/auth/permissions';
import { newTotpEnrolment, totpCodeAt, TOTP_PERIOD_SECONDS } from '../../src-main/auth/totp';
import { hashPassword } from '../../src-main/auth/password-hash';
import type { AccountCaller, DesktopCaller } from '../../src-main/console-api/caller';
import type { MerchantConsoleService } from '../../src-main/service';
import { SYSTEM_ACTOR } from '../../src-main/services/audit-service';
import { rawRequest, type RawResponse } from './http-raw';

export interface TestAccount {
  id: number;
  login: string;
  role: Role;
  password: string;
  /** Base32, when two-factor sign-in is on. */
  totpSecret: string | null;
  merchantIds: number[] | null;
}

let seq = 0;
/** One hash for every test account: scrypt costs ~0.1 s, and the password is the same. */
const PASSWORD = 'correct horse battery staple';
let passwordHash: Promise<string> | undefined;

export interface AccountSpec {
  role: Role;
  login?: string;
  merchantIds?: number[] | null;
  /** Default: on when the role requires it (it can approve). */
  totp?: boolean;
}

/** A real account; with two-factor sign-in enrolled by a real code unless `totp: false`. */
export async function createTestAccount(service: MerchantConsoleService, spec: AccountSpec): Promise<TestAccount> {
  const { accounts } = service.services;
  const login = spec.login ?? `${spec.role}-${++seq}`;
  passwordHash ??= hashPassword(PASSWORD);
  const hash = await passwordHash;
  const view = await service.store.write((tx) =>
    accounts.create(tx, SYSTEM_ACTOR, { login, display_name: `Test ${spec.role}`, role: spec.role, merchant_ids: spec.merchantIds ?? null }, hash),
  );
  const wantsTotp = spec.totp ?? view.totp_required;
  let totpSecret: string | null = null;
  if (wantsTotp) {
    totpSecret = (await newTotpEnrolment(login)).secret;
    const secret = totpSecret;
    await service.store.write(async (tx) => {
      await accounts.beginTotp(tx, SYSTEM_ACTOR, view.id, secret);
      // A code of the step before now: the tests' own first code (now) stays unused.
      await accounts.confirmTotp(tx, SYSTEM_ACTOR, view.id, totpCodeAt(secret, login, service.clock.now() - TOTP_PERIOD_SECONDS));
    });
  }
  return { id: view.id, login, role: spec.role, password: PASSWORD, totpSecret, merchantIds: spec.merchantIds ?? null };
}

/**
 * A TOTP code that the account has not used yet: the step `offset` steps
 * from the service's now (the store refuses a step at or before one used).
 */
export function totpCode(service: MerchantConsoleService, account: TestAccount, offset = 0): string {
  if (!account.totpSecret) throw new Error(`${account.login} has no two-factor sign-in`);
  return totpCodeAt(account.totpSecret, account.login, service.clock.now() + offset * TOTP_PERIOD_SECONDS);
}

/** The caller an account is once fully signed in (as the HTTP transport builds it). */
export function callerOf(account: TestAccount, stage: AccountCaller['stage'] = 'full'): AccountCaller {
  return {
    kind: 'account',
    accountId: account.id,
    login: account.login,
    role: account.role,
    merchantIds: account.merchantIds,
    sessionId: `test-session-${account.id}`,
    stage,
    address: '127.0.0.1',
    userAgent: 'vitest',
  };
}

/** The person at the desktop app on its own store. */
export async function desktopCallerOf(service: MerchantConsoleService): Promise<DesktopCaller> {
  const owner = await service.store.write((tx) => service.services.accounts.ensureDesktopOwner(tx));
  return { kind: 'desktop', role: 'owner', merchantIds: null, accountId: owner.id, login: owner.login };
}

/** An account of each role (platform-wide), two-factor on where the role needs it. */
export async function accountOfEachRole(service: MerchantConsoleService): Promise<Record<Role, TestAccount>> {
  const out = {} as Record<Role, TestAccount>;
  for (const role of ROLES) out[role] = await createTestAccount(service, { role });
  return out;
}

export interface HttpSite {
  url: string;
  host: string;
  origin: string;
  service: MerchantConsoleService;
}

/** A same-origin JSON POST to the listener, as the browser console sends it. */
export function postJson(site: HttpSite, path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(site.url, 'POST', path, {
    headers: { host: site.host, origin: site.origin, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The `name=value` of the session cookie a response set. */
export function sessionCookieOf(res: RawResponse): string {
  return (res.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
}

/** Signs in over HTTP (name, password, then the code when two-factor is on); answers the session cookie. */
export async function signInOverHttp(site: HttpSite, account: TestAccount): Promise<string> {
  const first = await postJson(site, '/console/sign-in', { login: account.login, password: account.password });
  if (first.status !== 200) throw new Error(`sign-in of ${account.login}: ${first.status} ${first.body}`);
  const cookie = sessionCookieOf(first);
  if (first.json<{ data: { stage: string } }>().data.stage === 'password') {
    const second = await postJson(site, '/console/sign-in/totp', { code: totpCode(site.service, account) }, { cookie });
    if (second.status !== 200) throw new Error(`code of ${account.login}: ${second.status} ${second.body}`);
  }
  return cookie;
}

/**
 * The gate every console call passes (both transports use it): a caller, a
 * finished sign-in, the permission the contract names, the request's schema,
 * the merchant scope — in that order — and no internal detail in answers.
 * The permission matrix calls every method as every role against the table
 * of the roles, written out here: a method missing from it, or
 * allowed to a role the table does not name, fails.
 */
import { describe, expect, it } from 'vitest';
import { createConsoleHandlers, dispatchConsoleCall } from '../../../src-main/console-api/console-handlers';
import { consoleApiContract } from '../../../src-shared/console-api/contract';
import { CONSOLE_METHODS, type ConsoleMethod } from '../../../src-shared/console-api/methods';
import { ROLES, type Role } from '../../../src-shared/auth/permissions';
import { ErrorCode } from '../../../src-shared/errors';
import { seedMerchant, testService } from '../../support/service-harness';
import { accountOfEachRole, callerOf, createTestAccount, desktopCallerOf } from '../../support/accounts';

const ALL = 'owner admin finance operator developer viewer';

/** Who may call what (docs/accounts.md, "Roles"). */
const EXPECTED: Record<ConsoleMethod, string> = {
  // any signed-in account
  getServiceInfo: ALL,
  getRegionData: ALL,
  getSession: ALL,
  changePassword: ALL,
  beginTotpEnrolment: ALL,
  confirmTotpEnrolment: ALL,
  signOutEverywhere: ALL,
  // reading orders, balances and the ledger
  listPayChannels: ALL,
  listOrders: ALL,
  getOrder: ALL,
  exportOrders: ALL,
  getDashboardStats: ALL,
  getBalances: ALL,
  listLedger: ALL,
  listPaymentMethods: ALL,
  listMerchants: ALL,
  listChannels: ALL,
  listChannelLinks: ALL,
  listApprovals: ALL,
  getApproval: ALL,
  cancelRequest: ALL,
  // operators create orders and work the list; finance may withdraw too
  createOrder: 'owner admin operator',
  requestWithdrawal: 'owner admin finance operator',
  cancelOrder: 'owner admin operator',
  resendCallback: 'owner admin operator developer',
  // developers: API keys, callback URL, sandbox actions
  simulateOrderOutcome: 'owner admin developer',
  rotateMerchantSecret: 'owner admin developer',
  revealRotatedSecret: 'owner admin developer',
  updateMerchantDeveloperSettings: 'owner admin developer',
  // finance: money and payees
  adjustBalance: 'owner admin finance',
  addPaymentMethod: 'owner admin finance',
  setPaymentMethodEnabled: 'owner admin finance',
  listAuditLog: 'owner admin finance',
  // only owners and finance approve
  approveRequest: 'owner finance',
  rejectRequest: 'owner finance',
  // administration
  createMerchant: 'owner admin',
  updateMerchant: 'owner admin',
  updateMerchantLimits: 'owner admin',
  createChannel: 'owner admin',
  updateChannel: 'owner admin',
  changeChannelCredentials: 'owner admin',
  linkChannel: 'owner admin',
  unlinkChannel: 'owner admin',
  getSettings: 'owner admin',
  updateListenerSettings: 'owner admin',
  listAccounts: 'owner admin',
  createAccount: 'owner admin',
  updateAccount: 'owner admin',
  requestRoleChange: 'owner admin',
  resetAccountPassword: 'owner admin',
  resetAccountTotp: 'owner admin',
};

/** Methods every account may call (its own session and account); any other method must name a permission. */
const ANY_ACCOUNT: readonly ConsoleMethod[] = ['getServiceInfo', 'getRegionData', 'getSession', 'changePassword', 'beginTotpEnrolment', 'confirmTotpEnrolment', 'signOutEverywhere'];

function handlersOf(service: Awaited<ReturnType<typeof testService>>) {
  return createConsoleHandlers(service, { version: '0.0.0-test', listenerUrl: () => null });
}

describe('console API dispatch', () => {
  it('the method list and the contract name the same calls', () => {
    expect(Object.keys(consoleApiContract).sort()).toEqual([...CONSOLE_METHODS].sort());
  });

  it('every method names a permission, but the account-self ones', () => {
    for (const method of CONSOLE_METHODS) {
      expect(consoleApiContract[method].permission === null, method).toBe(ANY_ACCOUNT.includes(method));
    }
  });

  it('permission matrix: every method as every role, refused (2008, naming the permission) exactly where the table says', async () => {
    const service = await testService();
    const handlers = handlersOf(service);
    const accounts = await accountOfEachRole(service);
    expect(Object.keys(EXPECTED).sort()).toEqual([...CONSOLE_METHODS].sort());
    for (const method of CONSOLE_METHODS) {
      const allowed = EXPECTED[method].split(' ') as Role[];
      for (const role of ROLES) {
        // An empty request: allowed calls stop at validation or answer; refused ones never get that far.
        const res = await dispatchConsoleCall(handlers, method, {}, callerOf(accounts[role]));
        const permission = consoleApiContract[method].permission;
        if (allowed.includes(role)) {
          expect(res.code === ErrorCode.PERMISSION_DENIED && res.msg.includes('role may not'), `${role} ${method}: ${res.msg}`).toBe(false);
        } else {
          expect(res, `${role} ${method}`).toEqual({ code: ErrorCode.PERMISSION_DENIED, msg: `${method}: the ${role} role may not do this (it needs ${permission})`, data: null });
        }
      }
    }
  });

  it('checks in order: caller, sign-in stage, permission, request, merchant scope', async () => {
    const service = await testService();
    const handlers = handlersOf(service);
    const m = await seedMerchant(service);
    const other = await seedMerchant(service, 'Other');
    const operator = await createTestAccount(service, { role: 'operator', merchantIds: [m.id] });
    const finance = await createTestAccount(service, { role: 'finance' });

    expect(await dispatchConsoleCall(handlers, 'listOrders', { merchant_id: m.id }, null)).toMatchObject({ code: ErrorCode.AUTH_CONSOLE_SESSION });
    expect(await dispatchConsoleCall(handlers, 'dropTables', {}, null)).toMatchObject({ code: ErrorCode.NOT_FOUND });

    // Between password and code: only getSession; before enrolment: only the enrolment calls.
    expect(await dispatchConsoleCall(handlers, 'listOrders', { merchant_id: m.id }, callerOf(operator, 'password'))).toMatchObject({ code: ErrorCode.AUTH_CONSOLE_SESSION });
    expect((await dispatchConsoleCall(handlers, 'getSession', {}, callerOf(operator, 'password'))).code).toBe(1);
    expect(await dispatchConsoleCall(handlers, 'listOrders', { merchant_id: m.id }, callerOf(finance, 'enrol'))).toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
      msg: 'listOrders: set up two-factor sign-in first (your role can approve requests)',
    });

    // Permission before validation: a refused role learns nothing about the request's shape.
    expect((await dispatchConsoleCall(handlers, 'createMerchant', { name: 42 }, callerOf(operator))).code).toBe(ErrorCode.PERMISSION_DENIED);
    // Validation before scope.
    expect(await dispatchConsoleCall(handlers, 'listOrders', { merchant_id: m.id, limit: 1000 }, callerOf(operator))).toEqual({ code: 1001, msg: 'limit: must be at most 100', data: null });
    // Merchant scope: a merchant not given to the account answers like a refusal, whether or not it exists.
    for (const id of [other.id, 999]) {
      expect(await dispatchConsoleCall(handlers, 'listOrders', { merchant_id: id }, callerOf(operator))).toEqual({
        code: ErrorCode.PERMISSION_DENIED,
        msg: `merchant_id: merchant ${id} is not one of this account's merchants`,
        data: null,
      });
    }
    // Platform calls are for platform staff only.
    expect(await dispatchConsoleCall(handlers, 'listChannels', {}, callerOf(operator))).toMatchObject({ code: ErrorCode.PERMISSION_DENIED, msg: 'listChannels: for platform staff only; this account acts for some merchants only' });
    // Filtered calls answer only the account's merchants.
    const listed = await dispatchConsoleCall(handlers, 'listMerchants', {}, callerOf(operator));
    expect((listed.data as { id: number }[]).map((x) => x.id)).toEqual([m.id]);

    const ok = await dispatchConsoleCall(handlers, 'listPayChannels', { merchant_id: m.id, category: 'beta' }, callerOf(operator));
    expect(ok.code).toBe(1);
    expect((ok.data as { total: number }).total).toBe(1);
    // The desktop owner acts for every merchant.
    expect((await dispatchConsoleCall(handlers, 'listOrders', { merchant_id: other.id }, await desktopCallerOf(service))).code).toBe(1);
  });

  it('a payment method id must belong to the merchant named (the scope covers merchant_id only)', async () => {
    const service = await testService();
    const handlers = handlersOf(service);
    const m = await seedMerchant(service);
    const other = await seedMerchant(service, 'Other');
    const finance = await createTestAccount(service, { role: 'finance', merchantIds: [m.id] });
    const othersMethod = (await service.store.read((tx) => service.services.paymentMethods.listOfMerchant(tx, other.id)))[0]!;
    const res = await dispatchConsoleCall(handlers, 'setPaymentMethodEnabled', { merchant_id: m.id, id: othersMethod.id, enabled: false }, callerOf(finance));
    expect(res).toEqual({ code: ErrorCode.NOT_FOUND, msg: `id: payment method ${othersMethod.id} not found for merchant ${m.id}`, data: null });
    expect((await service.store.read((tx) => service.services.paymentMethods.listOfMerchant(tx, other.id)))[0]!.enabled).toBe(true);
  });

  it('never returns internal error details', async () => {
    const service = await testService();
    const handlers = handlersOf(service);
    const owner = await createTestAccount(service, { role: 'owner' });
    const logged: unknown[] = [];
    handlers.listMerchants = () => {
      throw new Error('SQLITE_CORRUPT: secret internals');
    };
    const res = await dispatchConsoleCall(handlers, 'listMerchants', {}, callerOf(owner), { error: (d) => logged.push(d) });
    expect(res).toEqual({ code: 5000, msg: 'internal error', data: null });
    expect(logged).toHaveLength(1);
  });
});

/**
 * Service side of the console API: one handler per contract method (the
 * type makes a missing one a compile error), and one dispatcher that both
 * transports use — the desktop IPC wrapper and the /console-api HTTP route.
 * Handlers are thin: they call the same services as the merchant API and
 * the CLI, each call in one unit of work of the store (a write: one durable
 * commit; a failed write leaves nothing behind, its audit entry included).
 * Staff changes go through admin-actions (audited); money movement and its
 * keys go through the approval service when a second person must agree.
 * Password hashing and QR codes are made between units of work, never in one.
 */
import { AppError, ErrorCode, type Envelope } from '../../src-shared/errors';
import { consoleApiContract, type ConsoleParsedRequest, type ConsoleResponse } from '../../src-shared/console-api/contract';
import { CONSOLE_METHODS, consoleLinkUrl, type ConsoleMethod } from '../../src-shared/console-api/methods';
import type { ListenerSettings, SettingsView } from '../../src-shared/schemas/console';
import type { ApprovalKind, ApprovalView, SessionView } from '../../src-shared/schemas/accounts';
import type { CreatedOrderView } from '../../src-shared/schemas/merchant-api';
import { parseOrThrow } from '../../src-shared/validation/parse';
import type { JsonObject } from '../../src-shared/json/lossless-json';
import { errorEnvelope, internalError, successEnvelope } from '../http/envelope';
import { hashPassword, verifyPassword } from '../auth/password-hash';
import { newTotpEnrolment } from '../auth/totp';
import { approvalPartyOf, auditActorOf, callerCan, callerServes, isPlatformCaller, permissionsOf, type Caller } from './caller';
import type { MerchantConsoleService } from '../service';
import { adjustmentDraft, channelCredentialsDraft, roleChangeDraft, secretRotationDraft, withdrawalDraft } from '../services/approval-executors';
import type { ApprovalDraft } from '../services/approval-service';
import { adjustmentIdempotencyKey, consoleIdempotencyKey, requestFingerprint } from '../services/idempotency-service';
import { parseSignedYuan } from '../../src-shared/money';
import type { ReadTx, WriteTx } from '../store/store';

export type ConsoleHandlers = {
  [M in ConsoleMethod]: (request: ConsoleParsedRequest<M>, caller: Caller) => ConsoleResponse<M> | Promise<ConsoleResponse<M>>;
};

export interface ConsoleRuntimeInfo {
  version: string;
  listenerUrl(): string | null;
  /** The settings the running listener was started with; null (or absent) when none runs here. */
  listenerInUse?(): ListenerSettings | null;
  /** Why the listener is not running (e.g. its port is busy); null when it runs or is switched off. */
  listenerError?(): string | null;
  /**
   * Applies saved listener settings now (the desktop restarts its listener).
   * Absent (serve): they apply at the next start.
   */
  applyListenerSettings?(): Promise<void>;
}

/** What a call that may need a second person answers: done now, or the request that waits. */
interface DoneOrPending<T> {
  done: T | null;
  approval: ApprovalView | null;
}

/** What an idempotency key keeps of it: the request's id, not its view (that changes as it is decided). */
interface StoredOutcome<T> {
  done: T | null;
  approval_id: number | null;
}

export function createConsoleHandlers(service: MerchantConsoleService, runtime: ConsoleRuntimeInfo): ConsoleHandlers {
  const { merchants, channels, orders, paymentMethods, orderReports, settings, regions, ledger, orderAdmin, idempotency } = service.services;
  const { accounts, approvals, audit, adminActions, consoleAuth } = service.services;
  const read = <T>(fn: (tx: ReadTx) => Promise<T>): Promise<T> => service.store.read(fn);
  const write = <T>(fn: (tx: WriteTx) => Promise<T>): Promise<T> => service.store.write(fn);

  async function settingsView(): Promise<SettingsView> {
    return {
      listener: await read((tx) => settings.listener(tx)),
      listener_in_use: runtime.listenerInUse?.() ?? null,
      listener_url: runtime.listenerUrl(),
      listener_error: runtime.listenerError?.() ?? null,
      data_dir: service.dataDir,
      version: runtime.version,
    };
  }

  async function sessionView(tx: ReadTx, caller: Caller): Promise<SessionView> {
    return {
      account: await accounts.view(tx, await accounts.require(tx, caller.accountId)),
      permissions: [...permissionsOf(caller)],
      desktop: caller.kind === 'desktop',
      stage: caller.kind === 'account' ? caller.stage : 'full',
      approvals_waiting: callerCan(caller, 'approvals.decide') ? await approvals.waiting(tx, approvalPartyOf(caller)) : 0,
    };
  }

  /** An enabled merchant, for calls that create something for it. */
  async function enabledMerchant(tx: ReadTx, id: number) {
    const row = await merchants.require(tx, id);
    if (row.enabled !== 1) throw new AppError(ErrorCode.CONFLICT, `merchant_id: merchant ${id} is disabled`);
    return row;
  }

  /**
   * Files `draft` for a second person's approval — unless `required` is
   * false (a withdrawal at or below the merchant's threshold) or nobody else
   * could approve (the desktop app's owner alone on its store:
   * approval-service `needed`); then does `now` instead. With an idempotency
   * key, a retry answers the first outcome (a request as it stands now) and
   * does nothing again; the key is one per console method, whichever way the
   * first call went.
   */
  async function doOrRequest<T>(
    tx: WriteTx,
    caller: Caller,
    spec: {
      kind: ApprovalKind;
      merchantId: number | null;
      required?: boolean;
      draft: () => Promise<ApprovalDraft>;
      now: () => Promise<T>;
      idempotency?: { key: string; fingerprint: string; mismatchMessage: string } | undefined;
    },
  ): Promise<DoneOrPending<T>> {
    const party = approvalPartyOf(caller);
    const run = async (): Promise<StoredOutcome<T>> => {
      if (spec.required === false || !(await approvals.needed(tx, party, spec.kind, spec.merchantId))) return { done: await spec.now(), approval_id: null };
      const approval = await approvals.request(tx, party, await spec.draft());
      return { done: null, approval_id: approval.id };
    };
    let outcome: StoredOutcome<T>;
    if (spec.idempotency && spec.merchantId !== null) {
      const { answer } = await idempotency.once(tx, {
        merchantId: spec.merchantId,
        ...spec.idempotency,
        write: async () => ({ answer: JSON.stringify(await run()), orderId: null }),
      });
      const stored = JSON.parse(answer) as StoredOutcome<T> | T;
      // Keys kept by a version before approvals hold the answer itself.
      outcome = stored !== null && typeof stored === 'object' && 'approval_id' in stored ? (stored as StoredOutcome<T>) : { done: stored as T, approval_id: null };
    } else {
      outcome = await run();
    }
    return {
      done: outcome.done,
      approval: outcome.approval_id === null ? null : await approvals.get(tx, party, outcome.approval_id, callerCan(caller, 'approvals.decide')),
    };
  }

  return {
    getServiceInfo: () => ({
      version: runtime.version,
      data_dir: service.dataDir,
      listener_url: runtime.listenerUrl(),
      listener_error: runtime.listenerError?.() ?? null,
    }),
    getRegionData: (req) => {
      const version = regions.version();
      return req.if_none_match === version.etag ? { ...version, not_modified: true, tree: null } : { ...version, not_modified: false, tree: regions.tree() };
    },

    // ------------------------------------------------------------ merchant-scoped (scope checked by the dispatcher)
    listPayChannels: (req) =>
      read(async (tx) => {
        await merchants.require(tx, req.merchant_id);
        const list = await orderReports.channelsForOrders(tx, req.merchant_id, req.category);
        return { list, total: list.length };
      }),
    listOrders: (req) =>
      read(async (tx) => {
        await merchants.require(tx, req.merchant_id);
        return orderReports.list(tx, req.merchant_id, req);
      }),
    getOrder: (req) =>
      read(async (tx) => {
        await merchants.require(tx, req.merchant_id);
        return orderReports.detail(tx, req.merchant_id, req.order_no);
      }),
    createOrder: (req, caller) => {
      const { merchant_id, idempotency_key, ...input } = req;
      return write(async (tx) => {
        await enabledMerchant(tx, merchant_id);
        const create = async () => {
          const row = await orders.createBuy(tx, merchant_id, input);
          await adminActions.recordOrderCreated(tx, auditActorOf(caller), row, 'order.create');
          return { row, view: orders.createdView(row) };
        };
        if (idempotency_key === undefined) return (await create()).view;
        const { answer } = await idempotency.once(tx, {
          merchantId: merchant_id,
          // Console keys live apart from the HTTP API's Idempotency-Key values of the same merchant.
          key: consoleIdempotencyKey(idempotency_key),
          fingerprint: requestFingerprint(input as unknown as JsonObject, {}),
          mismatchMessage: 'idempotency_key: already used with different order fields',
          write: async () => {
            const { row, view } = await create();
            return { answer: JSON.stringify(view), orderId: row.id };
          },
        });
        return JSON.parse(answer) as CreatedOrderView;
      });
    },
    requestWithdrawal: (req, caller) => {
      const { merchant_id, idempotency_key, ...input } = req;
      return write(async (tx) => {
        const merchant = await enabledMerchant(tx, merchant_id);
        return doOrRequest(tx, caller, {
          kind: 'withdrawal',
          merchantId: merchant_id,
          // At or below the merchant's console threshold no second person is needed (default 0: every withdrawal).
          required: input.cny_amount > merchant.console_withdrawal_threshold,
          idempotency:
            idempotency_key === undefined
              ? undefined
              : {
                  // The createOrder namespace: one key names one order, buy or sell.
                  key: consoleIdempotencyKey(idempotency_key),
                  fingerprint: requestFingerprint(input as unknown as JsonObject, {}),
                  mismatchMessage: 'idempotency_key: already used with different order fields',
                },
          now: async () => {
            const row = await orders.createSell(tx, merchant_id, input);
            await adminActions.recordOrderCreated(tx, auditActorOf(caller), row, 'order.withdraw');
            return orders.createdView(row);
          },
          draft: async () => withdrawalDraft(tx, orders, await merchants.get(tx, merchant_id), input, (await ledger.balances(tx, merchant_id)).available),
        });
      });
    },
    exportOrders: (req) =>
      read(async (tx) => {
        await merchants.require(tx, req.merchant_id);
        return orderReports.exportChunk(tx, req.merchant_id, req);
      }),
    getDashboardStats: async (req) => {
      await read((tx) => merchants.require(tx, req.merchant_id));
      return orderReports.dashboard(req.merchant_id);
    },
    getBalances: (req) => read((tx) => orderAdmin.balances(tx, req.merchant_id)),
    listLedger: (req) =>
      read(async (tx) => {
        await merchants.require(tx, req.merchant_id);
        // One more than asked tells whether an older page exists.
        const rows = await ledger.transactionsOfMerchant(tx, req.merchant_id, { beforeId: req.before_id, limit: req.limit + 1 });
        const list = rows.slice(0, req.limit);
        return { list, next_before_id: rows.length > req.limit ? list[list.length - 1]!.id : null };
      }),
    resendCallback: (req, caller) =>
      write(async (tx) => adminActions.resendCallback(tx, auditActorOf(caller), await orders.requireForMerchant(tx, req.merchant_id, req.order_no))),
    simulateOrderOutcome: (req, caller) =>
      write(async (tx) => {
        const order = await orders.requireForMerchant(tx, req.merchant_id, req.order_no);
        await adminActions.simulateOrderOutcome(tx, auditActorOf(caller), order, req.action, req.reason ?? `sandbox: ${req.action} (console)`);
        return orderReports.detail(tx, req.merchant_id, req.order_no);
      }),

    // ------------------------------------------------------------ merchants, channels, payment methods
    listMerchants: (_req, caller) =>
      read(async (tx) => (await merchants.list(tx)).filter((m) => callerServes(caller, m.id))),
    createMerchant: (req, caller) => write((tx) => adminActions.createMerchant(tx, auditActorOf(caller), req)),
    updateMerchant: (req, caller) => write((tx) => adminActions.updateMerchant(tx, auditActorOf(caller), req)),
    updateMerchantLimits: (req, caller) =>
      write((tx) => adminActions.setMerchantLimits(tx, auditActorOf(caller), req.id, { console: req.console_withdrawal_threshold, api: req.api_withdrawal_threshold })),
    updateMerchantDeveloperSettings: (req, caller) =>
      write((tx) => adminActions.updateMerchant(tx, auditActorOf(caller), { id: req.merchant_id, callback_url: req.callback_url, sign_type: req.sign_type })),
    rotateMerchantSecret: (req, caller) =>
      write(async (tx) => {
        const merchant = await merchants.get(tx, req.merchant_id);
        return doOrRequest(tx, caller, {
          kind: 'secret_rotation',
          merchantId: merchant.id,
          now: () => adminActions.rotateMerchantSecret(tx, auditActorOf(caller), merchant.id),
          draft: async () => secretRotationDraft(merchant),
        });
      }),
    revealRotatedSecret: (req, caller) =>
      write(async (tx) => {
        const { merchantId, secret } = await approvals.revealSecret(tx, approvalPartyOf(caller), req.approval_id);
        return { ...(await merchants.get(tx, merchantId)), api_secret: secret };
      }),
    listChannels: () => read((tx) => channels.list(tx)),
    createChannel: (req, caller) => write((tx) => adminActions.createChannel(tx, auditActorOf(caller), req)),
    updateChannel: (req, caller) => write((tx) => adminActions.updateChannel(tx, auditActorOf(caller), req)),
    changeChannelCredentials: (req, caller) =>
      write(async (tx) => {
        const channel = await channels.get(tx, req.id);
        return doOrRequest(tx, caller, {
          kind: 'channel_credentials',
          merchantId: null,
          now: () => adminActions.updateChannel(tx, auditActorOf(caller), { id: req.id, config: req.config }),
          draft: async () => channelCredentialsDraft(channel, req.config),
        });
      }),
    listChannelLinks: (req) =>
      read(async (tx) => {
        if (req.merchant_id !== undefined) {
          await merchants.require(tx, req.merchant_id);
          return channels.linksOfMerchant(tx, req.merchant_id);
        }
        await channels.require(tx, req.channel_id!);
        return channels.linksOfChannel(tx, req.channel_id!);
      }),
    linkChannel: (req, caller) => write((tx) => adminActions.linkChannel(tx, auditActorOf(caller), req)),
    unlinkChannel: (req, caller) =>
      write(async (tx) => {
        await adminActions.unlinkChannel(tx, auditActorOf(caller), req.merchant_id, req.channel_id);
        return { merchant_id: req.merchant_id, channel_id: req.channel_id, unlinked: true as const };
      }),
    listPaymentMethods: (req) =>
      read(async (tx) => {
        await merchants.require(tx, req.merchant_id);
        return paymentMethods.listOfMerchant(tx, req.merchant_id);
      }),
    addPaymentMethod: (req, caller) => write((tx) => adminActions.addPaymentMethod(tx, auditActorOf(caller), req)),
    setPaymentMethodEnabled: (req, caller) =>
      write(async (tx) => {
        // The id must be one of the named merchant's: the scope check covers merchant_id, this ties the id to it.
        if (!(await paymentMethods.listOfMerchant(tx, req.merchant_id)).some((p) => p.id === req.id)) {
          throw new AppError(ErrorCode.NOT_FOUND, `id: payment method ${req.id} not found for merchant ${req.merchant_id}`);
        }
        return adminActions.setPaymentMethodEnabled(tx, auditActorOf(caller), req.id, req.enabled);
      }),
    adjustBalance: (req, caller) => {
      const { idempotency_key, ...input } = req;
      const amount = parseSignedYuan(input.amount);
      if (!amount.ok) throw new AppError(ErrorCode.VALIDATION, `amount: ${amount.rule}`);
      return write(async (tx) => {
        const merchant = await merchants.get(tx, input.merchant_id);
        return doOrRequest(tx, caller, {
          kind: 'balance_adjustment',
          merchantId: merchant.id,
          idempotency:
            idempotency_key === undefined
              ? undefined
              : {
                  key: adjustmentIdempotencyKey(idempotency_key),
                  // The adjustment as booked: "+100" and "100.00" are the same amount; the reason as kept.
                  fingerprint: requestFingerprint({ amount: String(amount.fen), reason: input.reason.trim() }, {}),
                  mismatchMessage: 'idempotency_key: already used with a different adjustment (amount or reason)',
                },
          now: () => adminActions.adjustBalance(tx, auditActorOf(caller), input),
          draft: async () => adjustmentDraft(merchant, (await ledger.balances(tx, merchant.id)).available, input),
        });
      });
    },
    cancelOrder: (req, caller) =>
      write(async (tx) => {
        const order = await orders.requireForMerchant(tx, req.merchant_id, req.order_no);
        await adminActions.cancelOrder(tx, auditActorOf(caller), order, req.reason);
        return orderReports.detail(tx, req.merchant_id, req.order_no);
      }),
    getSettings: () => settingsView(),
    updateListenerSettings: async (req, caller) => {
      await write((tx) => adminActions.updateListenerSettings(tx, auditActorOf(caller), req));
      await runtime.applyListenerSettings?.();
      return settingsView();
    },

    // ------------------------------------------------------------ the signed-in account
    getSession: (_req, caller) => read((tx) => sessionView(tx, caller)),
    changePassword: async (req, caller) => {
      const account = await read((tx) => accounts.require(tx, caller.accountId));
      if (!(await verifyPassword(req.current_password, account.password_hash))) {
        throw new AppError(ErrorCode.VALIDATION, "current_password: is not this account's password");
      }
      const nextHash = await hashPassword(req.new_password);
      return write(async (tx) => {
        await accounts.changePassword(tx, auditActorOf(caller), caller.accountId, account.password_hash, nextHash);
        return sessionView(tx, caller);
      });
    },
    beginTotpEnrolment: async (_req, caller) => {
      const account = await read((tx) => accounts.require(tx, caller.accountId));
      const enrolment = await newTotpEnrolment(account.login);
      await write((tx) => accounts.beginTotp(tx, auditActorOf(caller), caller.accountId, enrolment.secret));
      return { secret: enrolment.secret, otpauth_uri: enrolment.otpauthUri, qr_data_url: enrolment.qrDataUrl };
    },
    confirmTotpEnrolment: (req, caller) =>
      write(async (tx) => {
        await accounts.confirmTotp(tx, auditActorOf(caller), caller.accountId, req.code);
        if (caller.kind === 'account' && caller.stage === 'enrol') {
          await consoleAuth.completeEnrolment(tx, caller.sessionId);
          return sessionView(tx, { ...caller, stage: 'full' });
        }
        return sessionView(tx, caller);
      }),
    signOutEverywhere: (_req, caller) =>
      write(async (tx) => {
        const ended = await consoleAuth.endSessionsOf(tx, caller.accountId);
        await audit.record(tx, auditActorOf(caller), { action: 'sign_out.everywhere', target: `account ${caller.login}`, after: { ended_sessions: ended } });
        return { ended_sessions: ended };
      }),

    // ------------------------------------------------------------ accounts
    listAccounts: () => read((tx) => accounts.list(tx)),
    createAccount: async (req, caller) => {
      const { password, ...input } = req;
      const hash = await hashPassword(password);
      return write((tx) => accounts.create(tx, auditActorOf(caller), input, hash));
    },
    updateAccount: (req, caller) =>
      write(async (tx) => {
        if (req.id === caller.accountId && req.enabled === false) throw new AppError(ErrorCode.CONFLICT, 'id: you cannot disable your own account');
        return accounts.update(tx, auditActorOf(caller), req);
      }),
    requestRoleChange: (req, caller) =>
      write(async (tx) => {
        if (req.id === caller.accountId) throw new AppError(ErrorCode.CONFLICT, 'id: another owner or admin must ask for a change of your own role');
        const target = await accounts.roleChangeTarget(tx, req.id, req.role);
        return doOrRequest(tx, caller, {
          kind: 'account_role',
          merchantId: null,
          now: async () => {
            const before = await accounts.view(tx, target);
            const after = await accounts.setRole(tx, req.id, req.role);
            await audit.record(tx, auditActorOf(caller), { action: 'account.role', target: `account ${after.login}`, before: { role: before.role }, after: { role: after.role } });
            return after;
          },
          draft: async () => roleChangeDraft(target, req.role),
        });
      }),
    resetAccountPassword: (req, caller) =>
      write(async (tx) => {
        const account = await accounts.require(tx, req.id);
        const link = await consoleAuth.issuePasswordLink(tx, account.id);
        // Its sessions end now: whoever had the old password is out.
        await consoleAuth.endSessionsOf(tx, account.id);
        await audit.record(tx, auditActorOf(caller), { action: 'account.password_reset', target: `account ${account.login}` });
        return { url: consoleLinkUrl(service.publicUrl(), 'set-password', link.credential), expires_at: link.expires_at };
      }),
    resetAccountTotp: (req, caller) => write((tx) => accounts.resetTotp(tx, auditActorOf(caller), req.id)),

    // ------------------------------------------------------------ approvals
    listApprovals: (req, caller) => read((tx) => approvals.list(tx, approvalPartyOf(caller), callerCan(caller, 'approvals.decide'), req)),
    getApproval: (req, caller) => read((tx) => approvals.get(tx, approvalPartyOf(caller), req.id, callerCan(caller, 'approvals.decide'))),
    approveRequest: (req, caller) => write((tx) => approvals.approve(tx, approvalPartyOf(caller), req.id, req.totp_code, req.note ?? null)),
    rejectRequest: (req, caller) => write((tx) => approvals.reject(tx, approvalPartyOf(caller), req.id, req.note)),
    cancelRequest: (req, caller) => write((tx) => approvals.cancel(tx, approvalPartyOf(caller), req.id)),

    // ------------------------------------------------------------ audit
    listAuditLog: (req, caller) =>
      read((tx) =>
        audit.list(tx, {
          accountLogin: req.account_login,
          action: req.action,
          merchantId: req.merchant_id,
          merchantIds: caller.merchantIds ?? undefined,
          startTime: req.start_time,
          endTime: req.end_time,
          beforeId: req.before_id,
          limit: req.limit,
        }),
      ),
  };
}

export function isConsoleMethod(name: string): name is ConsoleMethod {
  return (CONSOLE_METHODS as readonly string[]).includes(name);
}

export interface ConsoleDispatchLog {
  error(details: { method: string; err: unknown }): void;
}

/** What a session that has not finished signing in may call. */
const BEFORE_FULL_SIGN_IN: Record<'password' | 'enrol', readonly ConsoleMethod[]> = {
  password: ['getSession', 'getServiceInfo'],
  enrol: ['getSession', 'getServiceInfo', 'beginTotpEnrolment', 'confirmTotpEnrolment', 'signOutEverywhere'],
};

/**
 * The gate both transports pass every call through, in this order: a known
 * method; a caller (no session: 401); a session that finished signing in
 * (or a call allowed before); the permission the contract names for the
 * method (403); the request against its schema (400); the merchant scope
 * (403: a merchant the caller does not serve, or a platform call by an
 * account limited to some merchants); then the handler. Answers with the
 * envelope both transports carry: `{code: 1, msg, data}` or
 * `{code, msg, data: null}`. Internal errors are logged, never returned.
 */
export async function dispatchConsoleCall(
  handlers: ConsoleHandlers,
  method: string,
  rawRequest: unknown,
  caller: Caller | null,
  log?: ConsoleDispatchLog,
): Promise<Envelope<unknown>> {
  try {
    if (!isConsoleMethod(method)) throw new AppError(ErrorCode.NOT_FOUND, `method: no console call named ${method.slice(0, 64)}`);
    if (!caller) throw new AppError(ErrorCode.AUTH_CONSOLE_SESSION, 'console session: not signed in');
    if (caller.kind === 'account' && caller.stage !== 'full' && !BEFORE_FULL_SIGN_IN[caller.stage].includes(method)) {
      throw caller.stage === 'password'
        ? new AppError(ErrorCode.AUTH_CONSOLE_SESSION, 'console session: enter the code from your authenticator app first')
        : new AppError(ErrorCode.PERMISSION_DENIED, `${method}: set up two-factor sign-in first (your role can approve requests)`);
    }
    const entry = consoleApiContract[method];
    if (entry.permission !== null && !callerCan(caller, entry.permission)) {
      throw new AppError(ErrorCode.PERMISSION_DENIED, `${method}: the ${caller.role} role may not do this (it needs ${entry.permission})`);
    }
    const request = parseOrThrow(entry.request, rawRequest ?? {}, 'request');
    if (entry.scope === 'platform' && !isPlatformCaller(caller)) {
      throw new AppError(ErrorCode.PERMISSION_DENIED, `${method}: for platform staff only; this account acts for some merchants only`);
    }
    if (entry.scope === 'merchant') {
      const merchantId = (request as { merchant_id?: unknown }).merchant_id;
      if (typeof merchantId !== 'number' || !callerServes(caller, merchantId)) {
        throw new AppError(ErrorCode.PERMISSION_DENIED, `merchant_id: merchant ${String(merchantId)} is not one of this account's merchants`);
      }
    }
    const handler = handlers[method] as (req: unknown, caller: Caller) => unknown;
    return successEnvelope(await handler(request, caller));
  } catch (err) {
    if (err instanceof AppError) return errorEnvelope(err);
    log?.error({ method, err });
    return errorEnvelope(internalError());
  }
}

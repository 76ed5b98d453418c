/**
 * `account create|list|disable|enable|reset-password|reset-2fa` and `audit
 * verify` (docs/accounts.md). The CLI is the machine's administrator — it
 * holds the data dir or the database credentials — so it acts at once (no
 * approval) and every change is audited as `cli`. Passwords never appear on
 * the command line: `account create` and `account reset-password` print a
 * one-time link where the person sets their own (or, with
 * --password-stdin, `account create` reads one from standard input).
 */
import { ROLES, type Role } from '../../../src-shared/auth/permissions';
import { consoleLinkUrl } from '../../../src-shared/console-api/methods';
import { accountCreateInput, PASSWORD_MIN_LENGTH, type AccountView } from '../../../src-shared/schemas/accounts';
import { AppError, ErrorCode } from '../../../src-shared/errors';
import { parseOrThrow } from '../../../src-shared/validation/parse';
import { hashPassword } from '../../auth/password-hash';
import type { MerchantConsoleService } from '../../service';
import { NO_PASSWORD } from '../../services/account-service';
import { CLI_ACTOR, type AuditVerification } from '../../services/audit-service';
import { PASSWORD_LINK_TTL } from '../../services/console-auth-service';
import type { ReadTx } from '../../store/store';
import { defineCommand, listenerBaseUrl, requiredOption, stringOption, UsageError, withService, type CommandArgs } from '../command';

interface AccountWithLink {
  account: AccountView;
  /** Where the person sets their password (works once, within 24 h); null when one was given on stdin. */
  password_url: string | null;
  expires_at: number | null;
}

function accountText(a: AccountView): string {
  const merchants = a.merchant_ids === null ? 'every merchant' : `merchants ${a.merchant_ids.join(', ')}`;
  return `account ${a.id}: ${a.login} (${a.display_name}), ${a.role}, ${merchants}, ${a.enabled ? 'enabled' : 'DISABLED'}, two-factor ${a.totp_enabled ? 'on' : a.totp_required ? 'REQUIRED, not set up' : 'off'}`;
}

function withLinkText(r: AccountWithLink): string {
  const lines = [accountText(r.account)];
  if (r.password_url) {
    lines.push(`password link (works once, within ${PASSWORD_LINK_TTL / 3600} h; give it to ${r.account.login} only):`, `  ${r.password_url}`);
  }
  return lines.join('\n');
}

async function requireLogin(s: MerchantConsoleService, tx: ReadTx, login: string) {
  const row = await s.services.accounts.findByLogin(tx, login.trim().toLowerCase());
  if (!row) throw new AppError(ErrorCode.NOT_FOUND, `LOGIN: no account named ${login}`);
  return row;
}

function merchantsOption(args: CommandArgs): number[] | null | undefined {
  const text = stringOption(args, 'merchants');
  if (text === undefined) return undefined;
  if (text === 'all') return null;
  const ids = text.split(',').map((t) => t.trim());
  if (ids.some((t) => !/^[1-9][0-9]{0,15}$/.test(t))) throw new UsageError('--merchants must be "all" or a comma-separated list of merchant ids');
  return ids.map(Number);
}

async function passwordLink(s: MerchantConsoleService, args: CommandArgs, accountId: number): Promise<{ url: string; expires_at: number }> {
  const link = await s.store.write((tx) => s.services.consoleAuth.issuePasswordLink(tx, accountId));
  return { url: consoleLinkUrl((await listenerBaseUrl(s, args.dataDir)).url, 'set-password', link.credential), expires_at: link.expires_at };
}

export const accountCommands = [
  defineCommand({
    name: 'account create',
    summary: 'create a staff account and print a one-time link where its password is set',
    usage: `account create LOGIN --role ${ROLES.join('|')} --display-name NAME [--merchants ID,ID|all] [--password-stdin]`,
    positionals: 1,
    options: {
      role: { type: 'string' },
      'display-name': { type: 'string' },
      merchants: { type: 'string' },
      'password-stdin': { type: 'boolean' },
    },
    async run(args, io): Promise<AccountWithLink> {
      const role = requiredOption(args, 'role');
      if (!(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      let passwordHash = NO_PASSWORD;
      const input = { login: args.positionals[0]!, display_name: requiredOption(args, 'display-name'), role: role as Role, merchant_ids: merchantsOption(args) };
      if (args.values['password-stdin'] === true) {
        const password = (await io.readStdin()).replace(/\r?\n$/, '');
        // The whole input's rules (the password's length among them) before hashing.
        parseOrThrow(accountCreateInput, { ...input, password }, 'account');
        passwordHash = await hashPassword(password);
      } else {
        parseOrThrow(accountCreateInput, { ...input, password: 'x'.repeat(PASSWORD_MIN_LENGTH) }, 'account');
      }
      const parsed = parseOrThrow(accountCreateInput.omit({ password: true }), input, 'account');
      return withService(args, async (s) => {
        const account = await s.store.write((tx) => s.services.accounts.create(tx, CLI_ACTOR, parsed, passwordHash));
        if (passwordHash !== NO_PASSWORD) return { account, password_url: null, expires_at: null };
        const link = await passwordLink(s, args, account.id);
        return { account, password_url: link.url, expires_at: link.expires_at };
      });
    },
    human: withLinkText,
  }),
  defineCommand({
    name: 'account list',
    summary: 'list staff accounts with role, merchants and two-factor state',
    usage: 'account list',
    positionals: 0,
    run: (args) => withService(args, (s) => s.store.read((tx) => s.services.accounts.list(tx))),
    human: (list: AccountView[]) => (list.length === 0 ? '(no accounts: `serve` prints a link to create the first owner)' : list.map(accountText).join('\n')),
  }),
  defineCommand({
    name: 'account disable',
    summary: 'disable an account: it cannot sign in, and its sessions end at once',
    usage: 'account disable LOGIN',
    positionals: 1,
    run: (args) =>
      withService(args, (s) =>
        s.store.write(async (tx) => s.services.accounts.update(tx, CLI_ACTOR, { id: (await requireLogin(s, tx, args.positionals[0]!)).id, enabled: false })),
      ),
    human: accountText,
  }),
  defineCommand({
    name: 'account enable',
    summary: 'enable a disabled account again',
    usage: 'account enable LOGIN',
    positionals: 1,
    run: (args) =>
      withService(args, (s) =>
        s.store.write(async (tx) => s.services.accounts.update(tx, CLI_ACTOR, { id: (await requireLogin(s, tx, args.positionals[0]!)).id, enabled: true })),
      ),
    human: accountText,
  }),
  defineCommand({
    name: 'account reset-password',
    summary: "end an account's sessions and print a one-time link where a new password is set",
    usage: 'account reset-password LOGIN',
    positionals: 1,
    run: (args) =>
      withService(args, async (s): Promise<AccountWithLink> => {
        const account = await s.store.write(async (tx) => {
          const row = await requireLogin(s, tx, args.positionals[0]!);
          await s.services.consoleAuth.endSessionsOf(tx, row.id);
          await s.services.audit.record(tx, CLI_ACTOR, { action: 'account.password_reset', target: `account ${row.login}` });
          return s.services.accounts.view(tx, row);
        });
        const link = await passwordLink(s, args, account.id);
        return { account, password_url: link.url, expires_at: link.expires_at };
      }),
    human: withLinkText,
  }),
  defineCommand({
    name: 'account reset-2fa',
    summary: "remove an account's two-factor enrolment (it enrols again at its next sign-in); its sessions end",
    usage: 'account reset-2fa LOGIN',
    positionals: 1,
    run: (args) =>
      withService(args, (s) => s.store.write(async (tx) => s.services.accounts.resetTotp(tx, CLI_ACTOR, (await requireLogin(s, tx, args.positionals[0]!)).id))),
    human: accountText,
  }),
  defineCommand({
    name: 'audit verify',
    summary: 'recompute the audit trail hash chain; names the first entry changed, removed or inserted (exit 1)',
    usage: 'audit verify',
    positionals: 0,
    async run(args, io): Promise<AuditVerification> {
      const result = await withService(args, (s) => s.services.audit.verify(s.store));
      if (!result.ok) {
        // Exit 1 with the finding, also with --json (the document is still printed).
        if (args.json) io.out(JSON.stringify(result));
        throw new AppError(ErrorCode.CONFLICT, `audit trail broken: ${result.problem!.message}`);
      }
      return result;
    },
    human: (r: AuditVerification) => `audit trail intact: ${r.entries} entries, chain head ${r.head_hash}`,
  }),
];

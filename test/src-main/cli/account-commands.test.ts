/**
 * `account …` and `audit verify` on a real store (SQLite, or PostgreSQL in
 * the postgres project): accounts made and managed by the machine's
 * administrator, every change audited as `cli`, and the audit trail's hash
 * chain checked — including after someone edited the database directly.
 */
import { describe, expect, it } from 'vitest';
import { cli } from '../../support/cli-harness';
import { read, testService, write } from '../../support/service-harness';
import { tempDir } from '../../support/temp-dir';
import type { MerchantConsoleService } from '../../../src-main/service';
import type { WriteTx } from '../../../src-main/store/store';

/** What someone with direct database access does first: switches off the append-only triggers. */
async function allowTampering(tx: WriteTx): Promise<void> {
  if (tx.dialect === 'sqlite') {
    await tx.run('DROP TRIGGER audit_log_append_only_update');
    await tx.run('DROP TRIGGER audit_log_append_only_delete');
  } else {
    await tx.run('ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only');
  }
}

async function tamper(service: MerchantConsoleService, sql: string, params: unknown[] = []): Promise<void> {
  await write(service, async (tx) => {
    await allowTampering(tx);
    await tx.run(sql, params);
  });
}

async function storeWithAuditTrail(): Promise<{ dir: string; service: MerchantConsoleService }> {
  const dir = tempDir();
  for (const [login, role] of [['ann', 'viewer'], ['bob', 'operator'], ['cid', 'developer']] as const) {
    expect((await cli(['account', 'create', login, '--role', role, '--display-name', login.toUpperCase(), '--data-dir', dir])).code).toBe(0);
  }
  expect((await cli(['account', 'disable', 'bob', '--data-dir', dir])).code).toBe(0);
  return { dir, service: await testService({ dataDir: dir }) };
}

describe('account commands', () => {
  it('create prints a one-time password link; list, disable, enable, reset-password and reset-2fa; each change audited as cli', async () => {
    const dir = tempDir();
    const created = await cli(['account', 'create', 'Vera', '--role', 'finance', '--display-name', 'Vera V', '--merchants', 'all', '--data-dir', dir, '--json']);
    expect(created.code).toBe(0);
    const out = created.json() as { account: Record<string, unknown>; password_url: string; expires_at: number };
    expect(out.account).toMatchObject({ login: 'vera', role: 'finance', merchant_ids: null, enabled: true, totp_enabled: false, totp_required: true });
    expect(out.password_url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/console\/#\/set-password\?token=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);

    const human = await cli(['account', 'create', 'walt', '--role', 'viewer', '--display-name', 'Walt', '--data-dir', dir]);
    expect(human.stdout).toContain('account 2: walt (Walt), viewer, every merchant, enabled, two-factor off');
    expect(human.stdout).toContain('password link (works once, within 24 h; give it to walt only):');

    const withPassword = await cli(['account', 'create', 'xena', '--role', 'viewer', '--display-name', 'Xena', '--password-stdin', '--data-dir', dir, '--json'], {
      stdin: 'a good long password\n',
    });
    expect(withPassword.code).toBe(0);
    expect(withPassword.json()).toMatchObject({ password_url: null });

    const list = await cli(['account', 'list', '--data-dir', dir, '--json']);
    expect((list.json() as unknown as { login: string }[]).map((a) => a.login)).toEqual(['vera', 'walt', 'xena']);
    expect((await cli(['account', 'disable', 'walt', '--data-dir', dir, '--json'])).json()).toMatchObject({ login: 'walt', enabled: false });
    expect((await cli(['account', 'enable', 'WALT', '--data-dir', dir, '--json'])).json()).toMatchObject({ login: 'walt', enabled: true });
    const reset = await cli(['account', 'reset-password', 'walt', '--data-dir', dir, '--json']);
    expect((reset.json() as { password_url: string }).password_url).toContain('/console/#/set-password?token=');
    expect((await cli(['account', 'reset-2fa', 'vera', '--data-dir', dir, '--json'])).json()).toMatchObject({ login: 'vera', totp_enabled: false });

    const service = await testService({ dataDir: dir });
    const entries = await read(service, (tx) => tx.all<{ actor_kind: string; account_login: string; action: string; after: string | null }>('SELECT * FROM audit_log ORDER BY id'));
    expect(entries.map((e) => `${e.actor_kind}:${e.account_login}:${e.action}`)).toEqual([
      'cli:cli:account.create',
      'cli:cli:account.create',
      'cli:cli:account.create',
      'cli:cli:account.disable',
      'cli:cli:account.update',
      'cli:cli:account.password_reset',
      'cli:cli:account.totp_reset',
    ]);
    // Nothing secret in the trail: no password, no hash, no link token.
    expect(JSON.stringify(entries)).not.toMatch(/scrypt\$|a good long password|token=/);
  });

  it('refuses bad input with the option or field named, and changes nothing', async () => {
    const dir = tempDir();
    const bad = [
      [['account', 'create', 'x1', '--display-name', 'X'], 2, '--role is required'],
      [['account', 'create', 'x1', '--role', 'king', '--display-name', 'X'], 2, '--role must be one of owner, admin, finance, operator, developer, viewer'],
      [['account', 'create', 'x1', '--role', 'viewer'], 2, '--display-name is required'],
      [['account', 'create', 'x', '--role', 'viewer', '--display-name', 'X'], 1, 'login: must be 3-64 characters'],
      [['account', 'create', 'admin1', '--role', 'admin', '--display-name', 'X', '--merchants', '1'], 1, 'merchant_ids: a admin acts for every merchant'],
      [['account', 'create', 'v1', '--role', 'viewer', '--display-name', 'X', '--merchants', 'one'], 2, '--merchants must be "all" or a comma-separated list of merchant ids'],
      [['account', 'disable', 'nobody'], 1, 'LOGIN: no account named nobody'],
    ] as const;
    for (const [args, code, message] of bad) {
      const res = await cli([...args, '--data-dir', dir]);
      expect([res.code, res.stderr], args.join(' ')).toEqual([code, expect.stringContaining(message)]);
    }
    const short = await cli(['account', 'create', 'shorty', '--role', 'viewer', '--display-name', 'S', '--password-stdin', '--data-dir', dir], { stdin: 'short\n' });
    expect([short.code, short.stderr]).toEqual([1, expect.stringContaining('password: must be at least 12 characters')]);
    expect((await cli(['account', 'list', '--data-dir', dir, '--json'])).json()).toEqual([]);
  });
});

describe('audit verify', () => {
  it('passes on an intact trail and prints the chain head', async () => {
    const { dir } = await storeWithAuditTrail();
    const ok = await cli(['audit', 'verify', '--data-dir', dir, '--json']);
    expect(ok.code).toBe(0);
    expect(ok.json()).toMatchObject({ ok: true, entries: 4, head_hash: expect.stringMatching(/^[0-9a-f]{64}$/), problem: null });
    expect((await cli(['audit', 'verify', '--data-dir', dir])).stdout).toMatch(/^audit trail intact: 4 entries, chain head [0-9a-f]{64}$/);
  });

  it('the store refuses updates and deletes of entries', async () => {
    const { service } = await storeWithAuditTrail();
    await expect(write(service, (tx) => tx.run("UPDATE audit_log SET target = 'x' WHERE id = 1"))).rejects.toThrow(/append-only/);
    await expect(write(service, (tx) => tx.run('DELETE FROM audit_log WHERE id = 1'))).rejects.toThrow(/append-only/);
  });

  it('names the entry that was changed in the database directly', async () => {
    const { dir, service } = await storeWithAuditTrail();
    await tamper(service, "UPDATE audit_log SET target = 'account mallory' WHERE id = 2");
    const res = await cli(['audit', 'verify', '--data-dir', dir]);
    expect([res.code, res.stderr]).toEqual([1, expect.stringContaining('audit trail broken: entry 2 was changed after it was written')]);
    const json = await cli(['audit', 'verify', '--data-dir', dir, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, problem: { id: 2, kind: 'changed' } });
  });

  it('names a removed entry, a removed tail, and an entry inserted after the last one', async () => {
    const removed = await storeWithAuditTrail();
    await tamper(removed.service, 'DELETE FROM audit_log WHERE id = 2');
    expect((await cli(['audit', 'verify', '--data-dir', removed.dir])).stderr).toContain('entry 2 was removed (the chain goes from 1 to 3)');

    const tail = await storeWithAuditTrail();
    await tamper(tail.service, 'DELETE FROM audit_log WHERE id = 4');
    expect((await cli(['audit', 'verify', '--data-dir', tail.dir])).stderr).toContain('the chain ends at entry 3, but entry 4 was the last one written: entries after 3 were removed');

    const inserted = await storeWithAuditTrail();
    const last = await read(inserted.service, (tx) => tx.get<Record<string, unknown>>('SELECT * FROM audit_log WHERE id = 4'));
    await tamper(
      inserted.service,
      `INSERT INTO audit_log (id, at, actor_kind, account_id, account_login, role, address, user_agent, action, target, merchant_id, before, after, prev_hash, hash)
       VALUES (5, ?, 'cli', NULL, 'cli', 'administrator', NULL, NULL, 'account.create', 'account mallory', NULL, NULL, NULL, ?, ?)`,
      [last!.at, last!.hash, 'f'.repeat(64)],
    );
    expect((await cli(['audit', 'verify', '--data-dir', inserted.dir])).stderr).toContain('entry 5 was inserted after the last entry written (4)');

    const changedLink = await storeWithAuditTrail();
    await tamper(changedLink.service, "UPDATE audit_log SET prev_hash = ? WHERE id = 3", ['0'.repeat(64)]);
    expect((await cli(['audit', 'verify', '--data-dir', changedLink.dir])).stderr).toContain('entry 3 does not follow entry 2');
  });
});

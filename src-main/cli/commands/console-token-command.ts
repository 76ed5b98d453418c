/**
 * `console-token new|reset`: login URLs for the browser console. They work
 * while `serve` runs on the same store (the running service reads tokens
 * and sessions from the store on every request, so a reset applies at once).
 */
import { consoleLoginUrl } from '../../http/console-routes';
import { CONSOLE_LOGIN_TOKEN_TTL } from '../../services/console-auth-service';
import { defineCommand, listenerBaseUrl, withService, type CommandArgs } from '../command';

interface LoginUrlResult {
  login_url: string;
  expires_at: number;
  /** Whether a service is running on this data dir now (the URL works only then). */
  serve_running: boolean;
  revoked_tokens?: number;
  revoked_sessions?: number;
}

function human(r: LoginUrlResult): string {
  const lines: string[] = [];
  if (r.revoked_tokens !== undefined) {
    lines.push(`revoked ${r.revoked_sessions} console session(s) and ${r.revoked_tokens} unused login link(s)`);
  }
  lines.push(`console login URL (works once, within ${CONSOLE_LOGIN_TOKEN_TTL / 3600} h):`, `  ${r.login_url}`);
  if (!r.serve_running) lines.push('note: no service is running on this data dir; the link works once `merchant-console serve` listens there');
  return lines.join('\n');
}

function issue(args: CommandArgs, reset: boolean): Promise<LoginUrlResult> {
  return withService(args, async (s) => {
    const base = await listenerBaseUrl(s, args.dataDir);
    if (reset) {
      const r = await s.store.write((tx) => s.services.consoleAuth.reset(tx));
      return {
        login_url: consoleLoginUrl(base.url, r.credential),
        expires_at: r.expires_at,
        serve_running: base.running,
        revoked_tokens: r.revoked_tokens,
        revoked_sessions: r.revoked_sessions,
      };
    }
    const t = await s.store.write((tx) => s.services.consoleAuth.issueLoginToken(tx));
    return { login_url: consoleLoginUrl(base.url, t.credential), expires_at: t.expires_at, serve_running: base.running };
  });
}

export const consoleTokenCommands = [
  defineCommand({
    name: 'console-token new',
    summary: 'print a new single-use login URL for the browser console (existing sessions stay)',
    usage: 'console-token new',
    positionals: 0,
    run: (args) => issue(args, false),
    human,
  }),
  defineCommand({
    name: 'console-token reset',
    summary: 'revoke every console session and login link, and print a fresh login URL',
    usage: 'console-token reset',
    positionals: 0,
    run: (args) => issue(args, true),
    human,
  }),
];

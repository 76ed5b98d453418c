/**
 * The few HTML pages the listener itself writes for the browser console:
 * login outcome, "sign in first", "build the console first". Static text,
 * no script (the CSP forbids it), bilingual (zh-CN first).
 */

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

interface PageText {
  title: string;
  zh: string[];
  en: string[];
  /** Commands shown in a code block. */
  commands?: string[];
  link?: { href: string; zh: string; en: string };
  /** Navigate here at once (same-site, so the SameSite=Strict cookie is sent). */
  refreshTo?: string;
}

export function consolePage(p: PageText): string {
  const paragraphs = (lines: string[], lang: string) => lines.map((l) => `<p lang="${lang}">${escapeHtml(l)}</p>`).join('\n');
  return `<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${p.refreshTo ? `<meta http-equiv="refresh" content="0;url=${escapeHtml(p.refreshTo)}">` : ''}
<title>${escapeHtml(p.title)} · merchant-console</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, -apple-system, "PingFang SC", "Microsoft YaHei", sans-serif; }
  body { max-width: 40rem; margin: 4rem auto; padding: 0 1.5rem; line-height: 1.6; }
  h1 { font-size: 1.35rem; }
  pre { padding: .75rem 1rem; border-radius: 6px; background: rgba(127,127,127,.15); overflow-x: auto; }
  p[lang="en"] { opacity: .75; }
</style>
</head>
<body>
<h1>${escapeHtml(p.title)}</h1>
${paragraphs(p.zh, 'zh-CN')}
${paragraphs(p.en, 'en')}
${p.commands?.length ? `<pre>${p.commands.map(escapeHtml).join('\n')}</pre>` : ''}
${p.link ? `<p><a href="${escapeHtml(p.link.href)}">${escapeHtml(p.link.zh)} / ${escapeHtml(p.link.en)}</a></p>` : ''}
</body>
</html>
`;
}

const NEW_LINK = 'npm run -s cli -- console-token new     # or: merchant-console console-token new';

export const pages = {
  signedIn: () =>
    consolePage({
      title: '已登录 · Signed in',
      zh: ['登录成功，正在打开控制台…'],
      en: ['Signed in; opening the console…'],
      refreshTo: './',
      link: { href: './', zh: '打开控制台', en: 'Open the console' },
    }),
  loginFailed: () =>
    consolePage({
      title: '登录链接无效 · Login link not valid',
      zh: ['此登录链接未知、已被使用、已被撤销或已过期（每个链接只能使用一次）。请在运行服务的机器上生成新的登录链接：'],
      en: ['This login link is unknown, already used, revoked or expired (each link works once). Make a new one on the machine running the service:'],
      commands: [NEW_LINK],
    }),
  signInFirst: () =>
    consolePage({
      title: '请先登录 · Sign in first',
      zh: ['访问控制台需要登录。请打开 merchant-console serve 启动时打印的登录链接，或生成新的链接：'],
      en: ['The console needs a sign-in. Open the login URL that merchant-console serve printed when it started, or make a new one:'],
      commands: [NEW_LINK],
    }),
  // Shown before any sign-in, so it names no path of the machine; serve prints where the build goes.
  notBuilt: () =>
    consolePage({
      title: '控制台尚未构建 · Console not built yet',
      zh: ['服务正在运行，但浏览器控制台的前端文件还没有构建。在项目目录中运行以下命令，然后刷新本页（无需重启服务）：'],
      en: ['The service runs, but the browser console has not been built yet. Run this in the project folder, then reload this page (no restart needed):'],
      commands: ['npm run build:console'],
    }),
  hostRefused: () =>
    consolePage({
      title: '主机名不被接受 · Host not accepted',
      zh: ['此请求的 Host 不是本服务监听的地址。请使用 serve 打印的地址访问。'],
      en: ['The Host of this request is not an address this service listens on. Use the address serve printed.'],
    }),
};

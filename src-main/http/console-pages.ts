/**
 * The few HTML pages the listener itself writes for the browser console
 * ("build the console first", "host not accepted"); signing in is the
 * console's own page. Static text, no script (the CSP forbids it),
 * bilingual (zh-CN first).
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
}

export function consolePage(p: PageText): string {
  const paragraphs = (lines: string[], lang: string) => lines.map((l) => `<p lang="${lang}">${escapeHtml(l)}</p>`).join('\n');
  return `<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
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
</body>
</html>
`;
}

export const pages = {
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

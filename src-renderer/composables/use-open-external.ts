/**
 * Opens an http(s) URL outside the console: a new tab in the browser; in the
 * desktop the shell denies new windows and hands http/https URLs to the
 * system browser (see notes/console.md), so one code path serves both.
 */
export function openExternal(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return;
  window.open(parsed.toString(), '_blank', 'noopener,noreferrer');
}

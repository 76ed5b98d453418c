import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../support/temp-dir';
import { fake, resetFakeElectron } from './support/fake-electron';

vi.mock('electron', async () => (await import('./support/fake-electron')).fakeElectronModule());

const { createAppRequestHandler, handleAppProtocol, mimeTypeOf, registerAppScheme, resolveInsideRoot } = await import('../../../src-main/desktop/app-protocol');

const CSP = "default-src 'none'; script-src 'self'";

/** A renderer build folder next to a secret that must stay unreachable. */
function rendererBuild() {
  const parent = tempDir('mc-proto-');
  const root = path.join(parent, 'renderer');
  fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>console</title>');
  fs.writeFileSync(path.join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  fs.writeFileSync(path.join(root, 'assets', 'index-abc123.css'), 'body{}');
  fs.writeFileSync(path.join(root, 'assets', 'logo.svg'), '<svg/>');
  fs.writeFileSync(path.join(root, 'assets', 'font.woff2'), 'wOF2');
  fs.writeFileSync(path.join(parent, 'secret.txt'), 'TOP SECRET');
  fs.writeFileSync(path.join(parent, 'renderer-evil.txt'), 'SIBLING');
  return { root, parent, handler: createAppRequestHandler({ rootDir: root, contentSecurityPolicy: CSP }) };
}

describe('app:// protocol', () => {
  beforeEach(() => resetFakeElectron());

  it('registers app as a standard, secure scheme before ready, and handles it after', () => {
    registerAppScheme();
    expect(fake.protocol.registerSchemesAsPrivileged).toHaveBeenCalledWith([
      { scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
    ]);
    handleAppProtocol({ rootDir: '/x', contentSecurityPolicy: CSP });
    expect(fake.protocol.handle).toHaveBeenCalledWith('app', expect.any(Function));
  });

  it('serves the renderer build with the right MIME types and the CSP', async () => {
    const { handler } = rendererBuild();
    const cases = [
      ['app://console/index.html', 'text/html; charset=utf-8', '<!doctype html><title>console</title>'],
      ['app://console/', 'text/html; charset=utf-8', '<!doctype html><title>console</title>'],
      ['app://console/assets/index-abc123.js', 'text/javascript; charset=utf-8', 'console.log(1)'],
      ['app://console/assets/index-abc123.css', 'text/css; charset=utf-8', 'body{}'],
      ['app://console/assets/logo.svg', 'image/svg+xml', '<svg/>'],
      ['app://console/assets/font.woff2', 'font/woff2', 'wOF2'],
    ] as const;
    for (const [url, type, body] of cases) {
      const res = await handler(new Request(url));
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toBe(type);
      expect(res.headers.get('content-security-policy')).toBe(CSP);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await res.text()).toBe(body);
    }
    const head = await handler(new Request('app://console/index.html', { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('refuses path traversal however it is spelled', async () => {
    const { handler } = rendererBuild();
    for (const url of [
      'app://console/..%2fsecret.txt',
      'app://console/..%2Fsecret.txt',
      'app://console/assets/..%2f..%2fsecret.txt',
      'app://console/%2e%2e%2fsecret.txt',
      'app://console/..%5csecret.txt',
      'app://console/assets%2f..%2f..%2frenderer-evil.txt',
      'app://console/index.html%00.png',
      'app://console/%E0%A4%A',
    ]) {
      const res = await handler(new Request(url));
      expect([403, 404], url).toContain(res.status);
      expect(await res.text(), url).not.toMatch(/TOP SECRET|SIBLING/);
    }
    // Unencoded ../ is normalised away by the URL parser and stays inside the root.
    const normalised = await handler(new Request('app://console/assets/../../secret.txt'));
    expect(normalised.status).toBe(404);
  });

  it('answers 404 for missing files and folders, other hosts; 405 for writes', async () => {
    const { handler } = rendererBuild();
    expect((await handler(new Request('app://console/nope.js'))).status).toBe(404);
    expect((await handler(new Request('app://console/assets'))).status).toBe(404);
    expect((await handler(new Request('app://other/index.html'))).status).toBe(404);
    const post = await handler(new Request('app://console/index.html', { method: 'POST', body: 'x' }));
    expect(post.status).toBe(405);
  });

  it('resolveInsideRoot keeps every answer inside the root', () => {
    const root = path.resolve('/srv/renderer');
    expect(resolveInsideRoot(root, '/index.html')).toBe(path.join(root, 'index.html'));
    expect(resolveInsideRoot(root, '/')).toBe(path.join(root, 'index.html'));
    expect(resolveInsideRoot(root, '/assets/a%20b.js')).toBe(path.join(root, 'assets', 'a b.js'));
    expect(resolveInsideRoot(root, '/../etc/passwd')).toBeNull();
    expect(resolveInsideRoot(root, '/a/%2e%2e/%2e%2e/x')).toBeNull();
    expect(resolveInsideRoot(root, '/..\\..\\x')).toBeNull();
    expect(resolveInsideRoot(root, '/x%00')).toBeNull();
    expect(resolveInsideRoot(root, '/%zz')).toBeNull();
  });

  it('unknown extensions are opaque bytes, never sniffed', () => {
    expect(mimeTypeOf('x.exe')).toBe('application/octet-stream');
    expect(mimeTypeOf('X.JS')).toBe('text/javascript; charset=utf-8');
  });
});

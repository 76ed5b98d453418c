/**
 * docs/security.md states the desktop's policies; these checks keep it from
 * drifting from the code it describes.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, GRANTED_PERMISSIONS } from '../../src-main/desktop/content-security';

const doc = fs.readFileSync('docs/security.md', 'utf8');

describe('docs/security.md', () => {
  it('answers every item of Electron’s checklist, in order', () => {
    const items = [...doc.matchAll(/^\| (\d+) \| /gm)].map((m) => Number(m[1]));
    expect(items).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('quotes the CSP the shell sends, verbatim', () => {
    expect(doc).toContain(contentSecurityPolicy());
  });

  it('names every permission the shell grants and every fuse it sets', () => {
    for (const permission of GRANTED_PERMISSIONS) expect(doc).toContain(permission);
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { build: { electronFuses: Record<string, boolean> } };
    for (const [fuse, value] of Object.entries(pkg.build.electronFuses)) expect(doc).toContain(`${fuse}: ${value}`);
  });
});

/**
 * What the console saved as files (utils/download.ts), for the export tests:
 * `vi.mock('<path to>/src-renderer/utils/download', () => import('../support/downloads'))`.
 */
export const downloads: { filename: string; text: string }[] = [];

export function downloadText(filename: string, text: string): void {
  downloads.push({ filename, text });
}

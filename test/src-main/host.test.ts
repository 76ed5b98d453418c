/**
 * The host's start-up and shutdown order (src-main/host.ts), with every
 * piece a recording stand-in: serve and the desktop app run it for real in
 * their own tests.
 */
import { describe, expect, it, vi } from 'vitest';
import { startHost, type HostStart } from '../../src-main/host';
import type { MerchantConsoleService } from '../../src-main/service';

// The heap policy sets a V8 flag for the whole process: recorded here, checked for real in heap-policy.test.ts.
const heapPolicy = vi.hoisted(() => ({ events: undefined as string[] | undefined }));
vi.mock('../../src-main/heap-policy', () => ({ applyHostHeapPolicy: () => heapPolicy.events?.push('heap policy applied') }));

type Step = 'lock' | 'open' | 'listen' | 'claims' | 'background' | 'checkpointer';

/** A host whose pieces write what happens to them into `events`; the step named `failing` throws. */
function recordingHost(failing?: Step, { closeFails = false } = {}) {
  const events: string[] = [];
  const fail = (step: Step) => {
    if (step === failing) throw new Error(`${step} failed`);
  };
  const service = {
    store: { dialect: 'sqlite' },
    work: {
      releaseClaimsOfOthers: async () => {
        fail('claims');
        events.push('claims of others released');
      },
    },
    close: async () => {
      events.push('store closed');
    },
  } as unknown as MerchantConsoleService;
  const start: HostStart<{ listener: { close(): Promise<void> }; url: string }> = {
    lock: () => {
      fail('lock');
      events.push('lock taken');
      return { describe: (info) => events.push(`lock describes ${info.url}`), release: () => void events.push('lock released') };
    },
    openService: async () => {
      fail('open');
      events.push('store opened');
      return service;
    },
    listen: async () => {
      fail('listen');
      events.push('listening');
      const close = async () => {
        events.push('listener closed');
        if (closeFails) throw new Error('socket stuck');
      };
      return { listener: { close }, url: 'http://127.0.0.1:1' };
    },
    runtime: {
      onError: () => undefined,
      startBackgroundWork: () => {
        fail('background');
        events.push('background started');
        return { stop: async () => void events.push('background stopped'), wake: () => undefined };
      },
      startCheckpointer: () => {
        fail('checkpointer');
        events.push('checkpointer started');
        return { stop: async () => (events.push('checkpointer stopped'), 0) };
      },
    },
    warn: (line) => events.push(`warned: ${line}`),
  };
  return { events, start, service };
}

describe('host start-up and shutdown', () => {
  it('applies the heap policy, then starts lock, store, listener and the work besides requests; stops listener first and the lock last', async () => {
    const { events, start, service } = recordingHost();
    heapPolicy.events = events;
    const host = await startHost(start).finally(() => (heapPolicy.events = undefined));
    expect(host.service).toBe(service);
    expect(host.listening.url).toBe('http://127.0.0.1:1');
    expect(events.splice(0)).toEqual([
      'heap policy applied',
      'lock taken',
      'store opened',
      'listening',
      'lock describes http://127.0.0.1:1',
      'claims of others released',
      'background started',
      'checkpointer started',
    ]);
    await Promise.all([host.stop(), host.stop()]);
    await host.stop();
    expect(events).toEqual(['listener closed', 'background stopped', 'checkpointer stopped', 'store closed', 'lock released']);
  });

  it.each<[Step, string[]]>([
    ['lock', []],
    ['open', ['lock taken', 'lock released']],
    ['listen', ['lock taken', 'store opened', 'store closed', 'lock released']],
    ['claims', ['lock taken', 'store opened', 'listening', 'lock describes http://127.0.0.1:1', 'listener closed', 'store closed', 'lock released']],
    [
      'background',
      ['lock taken', 'store opened', 'listening', 'lock describes http://127.0.0.1:1', 'claims of others released', 'listener closed', 'store closed', 'lock released'],
    ],
    [
      'checkpointer',
      [
        'lock taken', 'store opened', 'listening', 'lock describes http://127.0.0.1:1', 'claims of others released', 'background started',
        'background stopped', 'listener closed', 'store closed', 'lock released',
      ],
    ],
  ])('a failing step (%s) takes down what started before it, in order, and the error reaches the caller', async (step, expected) => {
    const { events, start } = recordingHost(step);
    await expect(startHost(start)).rejects.toThrow(`${step} failed`);
    expect(events).toEqual(expected);
  });

  it('a shutdown step that fails is reported, and the later steps still run', async () => {
    const { events, start } = recordingHost(undefined, { closeFails: true });
    const host = await startHost(start);
    events.splice(0);
    await host.stop();
    expect(events).toEqual([
      'listener closed',
      'warned: error while closing the listener: socket stuck',
      'background stopped',
      'checkpointer stopped',
      'store closed',
      'lock released',
    ]);
  });
});

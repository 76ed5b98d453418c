/**
 * The page harness's own promise: a Naive UI message still shown when a test
 * ends leaves no timer behind. Its hide timer (1.5–6 s) outlived the file once
 * and fired into the torn-down DOM ("window is not defined"), failing a CI run
 * whose tests had all passed.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { defineComponent, h, onMounted } from 'vue';
import { useMessage } from 'naive-ui';
import { fakeBridge } from './fake-bridge';
import { mountPage, unmountAll } from './mount-page';

afterEach(() => {
  unmountAll();
  vi.restoreAllMocks();
});

it('unmountAll clears the hide timer of a message still shown', async () => {
  const Page = defineComponent({
    setup() {
      const message = useMessage();
      onMounted(() => message.error('still shown', { duration: 5000 }));
      return () => h('div');
    },
  });
  await mountPage(Page, { bridge: fakeBridge({}).bridge });
  expect(document.body.textContent).toContain('still shown');
  const clearTimeout = vi.spyOn(window, 'clearTimeout');
  unmountAll();
  expect(clearTimeout).toHaveBeenCalled();
});

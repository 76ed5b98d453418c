/**
 * Mounts a console page (or any component) the way the app does: Pinia,
 * typed i18n, a memory-history router, the console API over a fake bridge,
 * a signed-in session (an owner unless told), and Naive UI's message/dialog
 * providers around it. `afterEach(unmountAll)` removes every mounted page and
 * what Naive UI teleported to the body.
 */
import { defineComponent, h, ref, type Component, type Ref } from 'vue';
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import { createPinia } from 'pinia';
import { createMemoryHistory, createRouter } from 'vue-router';
import { NDialogProvider, NMessageProvider } from 'naive-ui';
import { CONSOLE_API_KEY, createConsoleApiHandle, type ConsoleApiHandle } from '../../../src-renderer/api/console-api';
import { createAppI18n, type AppLocale } from '../../../src-renderer/i18n';
import { routes } from '../../../src-renderer/router';
import { useMerchantStore } from '../../../src-renderer/stores/merchant-store';
import { useSessionStore } from '../../../src-renderer/stores/session-store';
import type { SessionView } from '../../../src-shared/schemas/accounts';
import { OWNER_SESSION } from './fixtures';
import type { ConsoleBridge } from '../../../src-shared/console-api/client';

export interface MountOptions {
  /** The transport (the handle then acts as the desktop window's), unless `handle` is given. */
  bridge?: ConsoleBridge;
  /** A whole handle, e.g. the browser one over a fake fetch. */
  handle?: ConsoleApiHandle;
  locale?: AppLocale;
  merchantId?: number;
  props?: Record<string, unknown>;
  path?: string;
  /** The session the page sees (as getSession answered); null: none loaded yet (the app root loads it). Default: an owner. */
  session?: SessionView | null;
}

/**
 * Each mounted page with its message provider. A Naive UI message hides itself on a timer (its duration, 1.5–6 s)
 * that unmounting does not clear; left pending at the end of a file, it fired into the torn-down DOM ("window is
 * not defined", an unhandled error that failed a CI run). destroyAll() hides every message, which clears its timer.
 */
const mounted: { wrapper: VueWrapper; messages: Ref<{ destroyAll(): void } | null> }[] = [];

export function unmountAll(): void {
  for (const { wrapper, messages } of mounted.splice(0)) {
    messages.value?.destroyAll();
    wrapper.unmount();
  }
  document.body.innerHTML = '';
}

function requireBridge(bridge: ConsoleBridge | undefined): ConsoleBridge {
  if (!bridge) throw new Error('mountPage: give a bridge or a handle');
  return bridge;
}

export async function mountPage(component: Component, options: MountOptions): Promise<VueWrapper> {
  const pinia = createPinia();
  const router = createRouter({ history: createMemoryHistory(), routes });
  await router.push(options.path ?? '/');
  const messages = ref<{ destroyAll(): void } | null>(null);
  const Host = defineComponent({
    setup() {
      const merchants = useMerchantStore();
      if (options.merchantId !== undefined) {
        merchants.currentId = options.merchantId;
      }
      const session = options.session === undefined ? OWNER_SESSION : options.session;
      if (session !== null) useSessionStore().set(session);
      return () => h(NMessageProvider, { ref: messages }, () => h(NDialogProvider, null, () => h(component, options.props ?? {})));
    },
  });
  const wrapper = mount(Host, {
    attachTo: document.body,
    global: {
      plugins: [pinia, createAppI18n(options.locale ?? 'en-US'), router],
      provide: { [CONSOLE_API_KEY as symbol]: options.handle ?? createConsoleApiHandle(requireBridge(options.bridge)) },
    },
  });
  mounted.push({ wrapper, messages });
  await flushPromises();
  return wrapper;
}

/** Lets pending calls, Naive UI's asynchronous validation (async-validator) and re-renders finish. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await flushPromises();
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Submits the page's form as Enter or the submit button would, and waits for the outcome. */
export async function submitForm(wrapper: VueWrapper): Promise<void> {
  await wrapper.find('form').trigger('submit');
  await settle();
}

/** Types into a Naive UI input found by data-test (native input events, as a user would). */
export async function typeInto(wrapper: VueWrapper, dataTest: string, text: string): Promise<void> {
  const input = wrapper.find(`[data-test="${dataTest}"] input`);
  if (!input.exists()) throw new Error(`no input under [data-test="${dataTest}"]`);
  await input.setValue(text);
  await input.trigger('blur');
  await flushPromises();
}

/** Visible form feedback texts (inline errors) in document order. */
export function feedbackTexts(wrapper: VueWrapper): string[] {
  return wrapper.findAll('.n-form-item-feedback__line').map((n) => n.text()).filter((s) => s.length > 0);
}

/**
 * Waits until `find` answers something (routed pages are loaded lazily, so a navigation's page
 * appears only once its chunk is imported) and returns it; fails after `timeout` ms.
 */
export async function waitFor<T>(find: () => T | null | undefined | false, timeout = 5000): Promise<T> {
  const started = Date.now();
  for (;;) {
    await settle();
    const found = find();
    if (found) return found;
    if (Date.now() - started > timeout) throw new Error(`waitFor: nothing found after ${timeout} ms`);
  }
}

/** An element of the document (Naive UI teleports modals and drawers to the body) once it is there. */
export function waitForElement<E extends Element = HTMLElement>(selector: string, timeout?: number): Promise<E> {
  return waitFor(() => document.querySelector<E>(selector), timeout);
}

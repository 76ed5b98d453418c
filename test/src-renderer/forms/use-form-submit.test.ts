import { afterEach, describe, expect, it } from 'vitest';
import { defineComponent, h, reactive, ref, type VNode } from 'vue';
import { flushPromises } from '@vue/test-utils';
import { NForm, NFormItem, NInput, type FormInst, type FormRules } from 'naive-ui';
import { ConsoleApiError } from '../../../src-shared/console-api/client';
import { ErrorCode } from '../../../src-shared/errors';
import { useServerFieldErrors } from '../../../src-renderer/composables/use-api-error';
import { useFormSubmit, type FormSubmitOptions } from '../../../src-renderer/forms/use-form-submit';
import { fakeBridge } from '../support/fake-bridge';
import { feedbackTexts, mountPage, settle, unmountAll } from '../support/mount-page';

function deferred() {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Mounts a component made of just this setup (inside the app's providers, where useFormSubmit's toasts need to be). */
function mountSetup(setup: () => () => VNode) {
  return mountPage(defineComponent({ setup }), { bridge: fakeBridge({}).bridge });
}

type Harness = {
  submit: () => Promise<void>;
  submitting: { value: boolean };
  model: { name: string };
  invalid: number;
};

/** A one-field form (name, required, with inline service errors) submitted through useFormSubmit with the given action. */
async function mountForm(action: () => Promise<void>, onError?: FormSubmitOptions['onError']) {
  const harness = {} as Harness;
  const wrapper = await mountSetup(() => {
    const formRef = ref<FormInst | null>(null);
    const model = reactive({ name: '' });
    const server = useServerFieldErrors(['name'] as const);
    const rules: FormRules = { name: { required: true, trigger: 'blur', message: 'Enter a name' } };
    harness.invalid = 0;
    const { submitting, submit } = useFormSubmit(action, {
      form: formRef,
      fieldErrors: server,
      onInvalid: () => harness.invalid++,
      ...(onError ? { onError } : {}),
    });
    Object.assign(harness, { submit, submitting, model });
    return () =>
      h(NForm, { ref: formRef, model, rules }, () =>
        h(NFormItem, { label: 'Name', path: 'name', ...server.itemProps('name') }, () => h(NInput, { value: model.name, 'onUpdate:value': (v: string) => (model.name = v) })),
      );
  });
  return { wrapper, harness };
}

const toasts = () => [...document.querySelectorAll('.n-message__content')].map((n) => n.textContent);

afterEach(unmountAll);

describe('useFormSubmit', () => {
  it('runs nothing while the form’s own rules fail', async () => {
    let runs = 0;
    const { wrapper, harness } = await mountForm(async () => void runs++);
    await harness.submit();
    await settle();
    expect(runs).toBe(0);
    expect(harness.invalid).toBe(1);
    expect(harness.submitting.value).toBe(false);
    expect(feedbackTexts(wrapper)).toEqual(['Enter a name']);
  });

  it('runs the action once the rules pass, one run at a time, and reports submitting meanwhile', async () => {
    const call = deferred();
    let runs = 0;
    const { harness } = await mountForm(() => (runs++, call.promise));
    harness.model.name = 'Demo';
    const first = harness.submit();
    await flushPromises();
    expect(runs).toBe(1);
    expect(harness.submitting.value).toBe(true);
    const second = harness.submit();
    await flushPromises();
    expect(runs).toBe(1);
    call.resolve();
    await Promise.all([first, second]);
    expect(harness.submitting.value).toBe(false);
    expect(harness.invalid).toBe(0);
    await harness.submit();
    expect(runs).toBe(2);
  });

  it('shows a service error naming a form field under that field, without a toast', async () => {
    const { wrapper, harness } = await mountForm(() => Promise.reject(new ConsoleApiError(ErrorCode.VALIDATION, 'name: already taken')));
    harness.model.name = 'Demo';
    await harness.submit();
    await settle();
    expect(feedbackTexts(wrapper)).toEqual(['already taken']);
    expect(toasts()).toEqual([]);
    expect(harness.submitting.value).toBe(false);
  });

  it('clears the last service field errors when submitted again', async () => {
    let fail = true;
    const { wrapper, harness } = await mountForm(() => (fail ? Promise.reject(new ConsoleApiError(ErrorCode.VALIDATION, 'name: already taken')) : Promise.resolve()));
    harness.model.name = 'Demo';
    await harness.submit();
    await settle();
    expect(feedbackTexts(wrapper)).toEqual(['already taken']);
    fail = false;
    await harness.submit();
    await settle();
    expect(feedbackTexts(wrapper)).toEqual([]);
  });

  it('shows any other error as a toast with the service’s message', async () => {
    const { wrapper, harness } = await mountForm(() => Promise.reject(new ConsoleApiError(ErrorCode.CHANNEL_FAILURE, 'channel 2: refused')));
    harness.model.name = 'Demo';
    await harness.submit();
    await settle();
    expect(toasts()).toEqual(['channel 2: refused']);
    expect(feedbackTexts(wrapper)).toEqual([]);
    expect(harness.submitting.value).toBe(false);
  });

  it('lets the form handle an error itself (no toast, no field error) when onError says so', async () => {
    const seen: unknown[] = [];
    const err = new ConsoleApiError(ErrorCode.INSUFFICIENT_BALANCE, 'insufficient balance');
    const { wrapper, harness } = await mountForm(() => Promise.reject(err), (e) => (seen.push(e), true));
    harness.model.name = 'Demo';
    await harness.submit();
    await settle();
    expect(seen).toEqual([err]);
    expect(toasts()).toEqual([]);
    expect(feedbackTexts(wrapper)).toEqual([]);
  });

  it('runs an action button (no form) at once, passing its arguments, and toasts its failure', async () => {
    const args: unknown[] = [];
    const harness = {} as { run: (a: string) => Promise<void> };
    await mountSetup(() => {
      const { submit } = useFormSubmit(async (action: string) => {
        args.push(action);
        throw new ConsoleApiError(ErrorCode.VALIDATION, 'name: not a field of this action');
      });
      harness.run = submit;
      return () => h('div');
    });
    await harness.run('pay');
    await settle();
    expect(args).toEqual(['pay']);
    // No field errors given: even a field-naming error is a toast.
    expect(toasts()).toEqual(['name: not a field of this action']);
  });
});

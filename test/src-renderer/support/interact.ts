/**
 * Driving mounted pages as a person does, through the document (Naive UI
 * teleports modals, drawers and dialogs to the body): typing into an input or
 * textarea found by data-test, clicking, confirming a dialog, choosing in a
 * select.
 */
import type { VueWrapper } from '@vue/test-utils';
import { NSelect } from 'naive-ui';
import { settle } from './mount-page';

/** Types into the input (or textarea) under [data-test], then leaves it (input and blur, so the rules run). */
export async function typeIn(dataTest: string, text: string): Promise<void> {
  const input = document.querySelector<HTMLInputElement | HTMLTextAreaElement>(`[data-test="${dataTest}"] input, [data-test="${dataTest}"] textarea`);
  if (!input) throw new Error(`no input under [data-test="${dataTest}"]`);
  input.value = text;
  input.dispatchEvent(new Event('input'));
  input.dispatchEvent(new Event('blur'));
  await settle();
}

export async function clickOn(dataTest: string): Promise<void> {
  const el = document.querySelector<HTMLElement>(`[data-test="${dataTest}"]`);
  if (!el) throw new Error(`no [data-test="${dataTest}"]`);
  el.click();
  await settle();
}

/** Clicks the button of the open dialog (useConfirm's) that reads `text`. */
export async function confirmDialog(text: string): Promise<void> {
  const button = [...document.querySelectorAll<HTMLButtonElement>('.n-dialog button')].find((b) => b.textContent?.trim() === text);
  if (!button) throw new Error(`no dialog button "${text}"`);
  button.click();
  await settle();
}

/**
 * Chooses in a Naive UI select as its menu would. happy-dom has no layout, so
 * the select's virtual option list renders no items to click; the select's own
 * update handlers are called instead (v-model and @update). Every value chosen
 * must be one the select offers (null clears).
 */
export async function chooseIn(w: VueWrapper, dataTest: string, value: string | number | (string | number)[] | null): Promise<void> {
  const select = w.findAllComponents(NSelect).find((c) => c.attributes('data-test') === dataTest);
  if (!select) throw new Error(`no select [data-test="${dataTest}"]`);
  const options = select.props('options') as { value: string | number }[];
  for (const v of value === null ? [] : Array.isArray(value) ? value : [value]) {
    if (!options.some((o) => o.value === v)) throw new Error(`[data-test="${dataTest}"] offers no ${v}: ${JSON.stringify(options)}`);
  }
  const handlers = select.vm.$.vnode.props?.['onUpdate:value'] as ((v: unknown) => void) | ((v: unknown) => void)[];
  for (const handler of Array.isArray(handlers) ? handlers : [handlers]) handler(value);
  await settle();
}

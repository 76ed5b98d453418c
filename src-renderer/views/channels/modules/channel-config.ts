/**
 * A channel's sensitive config as the forms edit it (key and value entries,
 * config-entries.vue) and as the service takes it (one object); the key rule
 * is the service's (channelConfig in src-shared/schemas/operator.ts).
 */
import { channelConfig } from '../../../../src-shared/schemas/operator';
import { problem, type CheckProblem } from '../../../forms/field-check';

export interface ConfigEntry {
  key: string;
  value: string;
}

export function configOf(entries: readonly ConfigEntry[]): Record<string, string> {
  return Object.fromEntries(entries.map((e) => [e.key, e.value]));
}

export function configKeysCheck(m: { config: readonly ConfigEntry[] }): CheckProblem | null {
  return m.config.every((e) => channelConfig.keyType.safeParse(e.key).success) ? null : problem('channels.rules.configKey');
}

/** Table columns both channel tables share: id, name, category label, pay-method labels. */
import { h } from 'vue';
import { NSpace, NTag, type DataTableColumns } from 'naive-ui';
import type { ChannelCategory } from '../../../../src-shared/constants';
import type { ConsoleResponse } from '../../../../src-shared/console-api/contract';
import type { Translate } from '../../../i18n';
import { CATEGORY_TAG, type Labels } from '../../../i18n/labels';

export type AdminChannel = ConsoleResponse<'listChannels'>[number];

export function baseChannelColumns<Row extends { id: number; name: string; category: ChannelCategory; pay_method: string }>(
  t: Translate,
  labels: Labels,
): DataTableColumns<Row> {
  return [
    { key: 'id', title: t('channels.columns.id'), width: 60 },
    { key: 'name', title: t('channels.columns.name'), minWidth: 140, ellipsis: { tooltip: true } },
    {
      key: 'category',
      title: t('channels.columns.category'),
      width: 100,
      render: (row) => h(NTag, { size: 'small', bordered: false, type: CATEGORY_TAG[row.category] }, { default: () => labels.category(row.category) }),
    },
    {
      key: 'pay_method',
      title: t('channels.columns.payMethod'),
      minWidth: 200,
      render: (row) =>
        h(NSpace, { size: 4 }, { default: () => row.pay_method.split(',').filter(Boolean).map((m) => h(NTag, { size: 'small', round: true }, { default: () => labels.payMethod(m) })) }),
    },
  ];
}

import { describe, expect, it } from 'vitest';
import { defineComponent, h, nextTick } from 'vue';
import { flushPromises, mount } from '@vue/test-utils';
import { NDataTable } from 'naive-ui';
import { keysetPages, pageOf, useRemoteTable, type KeysetQuery, type RemoteQuery, type RemoteTable } from '../../../src-renderer/composables/use-remote-table';

interface Row {
  id: number;
  status: string;
}
interface Filters {
  status: string | null;
  range: [number, number] | null;
}

/** A fake server: rows 1..total, filtered by status (even ids 'paid', odd 'pending'), newest (highest id) first. */
function server(total: number) {
  const queries: RemoteQuery<Filters>[] = [];
  const all: Row[] = Array.from({ length: total }, (_, i) => ({ id: total - i, status: (total - i) % 2 === 0 ? 'paid' : 'pending' }));
  return {
    queries,
    all,
    fetch: async (q: RemoteQuery<Filters>) => {
      queries.push(structuredClone(q));
      const matching = q.filters.status ? all.filter((r) => r.status === q.filters.status) : all;
      return { list: matching.slice((q.page - 1) * q.limit, q.page * q.limit), total: matching.length };
    },
  };
}

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const emptyFilters = (): Filters => ({ status: null, range: null });

describe('useRemoteTable', () => {
  it('loads the first page at once and pages remotely', async () => {
    const s = server(45);
    const table = useRemoteTable<Row, Filters>({ fetch: s.fetch, filters: emptyFilters, rowKey: (r) => r.id, pageSize: 20 });
    expect(table.loading.value).toBe(true);
    await flushPromises();
    expect(table.loading.value).toBe(false);
    expect(table.rows.value.map((r) => r.id)).toEqual(s.all.slice(0, 20).map((r) => r.id));
    expect(table.pagination.itemCount).toBe(45);

    await table.setPage(3);
    expect(s.queries.at(-1)).toMatchObject({ page: 3, limit: 20 });
    expect(table.rows.value.map((r) => r.id)).toEqual([5, 4, 3, 2, 1]);

    await table.setPageSize(50);
    expect(table.pagination.page).toBe(1);
    expect(table.rows.value).toHaveLength(45);
  });

  it('applies draft filters only on search, from page 1, and keeps them apart from later edits', async () => {
    const s = server(30);
    const table = useRemoteTable<Row, Filters>({ fetch: s.fetch, filters: emptyFilters, rowKey: (r) => r.id, pageSize: 10 });
    await flushPromises();
    await table.setPage(2);

    table.filters.status = 'paid';
    table.filters.range = [1, 2];
    await nextTick();
    expect(s.queries).toHaveLength(2); // editing the form fetches nothing

    await table.search();
    expect(s.queries.at(-1)).toEqual({ page: 1, limit: 10, filters: { status: 'paid', range: [1, 2] } });
    expect(table.rows.value.every((r) => r.status === 'paid')).toBe(true);
    expect(table.total.value).toBe(15);

    // Mutating the draft after the search does not alter what was applied (used by CSV export).
    table.filters.range![0] = 99;
    table.filters.status = 'pending';
    expect(table.appliedFilters.value).toEqual({ status: 'paid', range: [1, 2] });

    await table.reset();
    expect(table.filters).toEqual(emptyFilters());
    expect(s.queries.at(-1)).toEqual({ page: 1, limit: 10, filters: emptyFilters() });
    expect(table.total.value).toBe(30);
  });

  it('ignores an older answer that arrives after a newer one', async () => {
    const first = deferred<{ list: Row[]; total: number }>();
    const second = deferred<{ list: Row[]; total: number }>();
    const pending = [first, second];
    const table = useRemoteTable<Row, Filters>({
      fetch: () => pending.shift()!.promise,
      filters: emptyFilters,
      rowKey: (r) => r.id,
    });
    const reload = table.reload();
    second.resolve({ list: [{ id: 2, status: 'paid' }], total: 1 });
    await reload;
    first.resolve({ list: [{ id: 1, status: 'stale' }], total: 99 });
    await flushPromises();
    expect(table.rows.value).toEqual([{ id: 2, status: 'paid' }]);
    expect(table.total.value).toBe(1);
    expect(table.loading.value).toBe(false);
  });

  it('keeps the rows and reports the error when a fetch fails, and clears it on the next success', async () => {
    let fail = false;
    const s = server(5);
    const table = useRemoteTable<Row, Filters>({
      fetch: async (q) => {
        if (fail) throw new Error('cny_amount: service down');
        return s.fetch(q);
      },
      filters: emptyFilters,
      rowKey: (r) => r.id,
    });
    await flushPromises();
    fail = true;
    await table.reload();
    expect(table.error.value?.message).toBe('cny_amount: service down');
    expect(table.rows.value).toHaveLength(5);
    expect(table.loading.value).toBe(false);
    fail = false;
    await table.reload();
    expect(table.error.value).toBeNull();
  });

  it('moves back to the last page that still exists when the list shrank', async () => {
    let total = 50;
    const fetch = async (q: RemoteQuery<Filters>) => {
      const all = Array.from({ length: total }, (_, i) => ({ id: i + 1, status: 'paid' }));
      return { list: all.slice((q.page - 1) * q.limit, q.page * q.limit), total };
    };
    const table = useRemoteTable<Row, Filters>({ fetch, filters: emptyFilters, rowKey: (r) => r.id, pageSize: 10 });
    await flushPromises();
    await table.setPage(5);
    total = 23;
    await table.reload();
    expect(table.pagination.page).toBe(3);
    expect(table.rows.value.map((r) => r.id)).toEqual([21, 22, 23]);
  });

  it('drives an NDataTable: clicking a page button fetches that page', async () => {
    const s = server(35);
    let table!: RemoteTable<Row, Filters>;
    const Host = defineComponent({
      setup() {
        table = useRemoteTable<Row, Filters>({ fetch: s.fetch, filters: emptyFilters, rowKey: (r) => r.id, pageSize: 10 });
        return () => h(NDataTable, { ...table.tableProps.value, columns: [{ key: 'id', title: 'ID' }, { key: 'status', title: 'Status' }] });
      },
    });
    const wrapper = mount(Host, { attachTo: document.body });
    await flushPromises();
    expect(wrapper.findAll('tbody tr')).toHaveLength(10);
    expect(wrapper.find('tbody tr td').text()).toBe('35');

    const pageFour = wrapper.findAll('.n-pagination-item').find((n) => n.text() === '4');
    expect(pageFour).toBeDefined();
    await pageFour!.trigger('click');
    await flushPromises();
    expect(s.queries.at(-1)).toMatchObject({ page: 4, limit: 10 });
    expect(wrapper.findAll('tbody tr').map((r) => r.find('td').text())).toEqual(['5', '4', '3', '2', '1']);
    wrapper.unmount();
  });
});

describe('pageOf (lists the service answers whole)', () => {
  it('cuts the requested page and counts the whole list', () => {
    const list = [1, 2, 3, 4, 5];
    expect(pageOf(list, 1, 2)).toEqual({ list: [1, 2], total: 5 });
    expect(pageOf(list, 3, 2)).toEqual({ list: [5], total: 5 });
    expect(pageOf(list, 4, 2)).toEqual({ list: [], total: 5 });
  });

  it('pages a keyset list (before_id) by page number: each page starts where the last ended, one page beyond the known', async () => {
    // Ids 1..25, newest first, 10 a page; filtered by status like the service would.
    const all: Row[] = Array.from({ length: 25 }, (_, i) => ({ id: 25 - i, status: (25 - i) % 2 === 0 ? 'paid' : 'pending' }));
    const queries: KeysetQuery<Filters, number>[] = [];
    const fetch = keysetPages<Row, Filters, number>(async (q) => {
      queries.push(structuredClone(q));
      const older = all.filter((r) => (q.cursor === undefined || r.id < q.cursor) && (!q.filters.status || r.status === q.filters.status));
      const list = older.slice(0, q.limit);
      return { list, next: older.length > q.limit ? list[list.length - 1]!.id : null };
    });
    const table = useRemoteTable<Row, Filters>({ fetch, filters: emptyFilters, rowKey: (r) => r.id, pageSize: 10, quickJumper: false });
    await flushPromises();
    expect(table.pagination.showQuickJumper).toBe(false);
    expect(table.rows.value.map((r) => r.id)).toEqual([25, 24, 23, 22, 21, 20, 19, 18, 17, 16]);
    // Known: one page, and that another exists.
    expect(table.pagination.itemCount).toBe(11);

    await table.setPage(2);
    expect(queries.at(-1)).toEqual({ cursor: 16, limit: 10, filters: emptyFilters() });
    expect(table.pagination.itemCount).toBe(21);
    await table.setPage(3);
    expect(table.rows.value.map((r) => r.id)).toEqual([5, 4, 3, 2, 1]);
    expect(table.pagination.itemCount).toBe(25);

    // Back to page 2: its start is remembered.
    await table.setPage(2);
    expect(queries.at(-1)).toMatchObject({ cursor: 16 });

    // New filters forget the cursors: page 1 again, from the newest.
    table.filters.status = 'paid';
    await table.search();
    expect(queries.at(-1)).toEqual({ cursor: undefined, limit: 10, filters: { status: 'paid', range: null } });
    expect(table.rows.value.map((r) => r.id)).toEqual([24, 22, 20, 18, 16, 14, 12, 10, 8, 6]);

    // A jump past the known pages walks there, page by page.
    table.filters.status = null;
    await table.search();
    const before = queries.length;
    await table.setPage(3);
    expect(queries.slice(before).map((q) => q.cursor)).toEqual([16, 6]);
    expect(table.rows.value.map((r) => r.id)).toEqual([5, 4, 3, 2, 1]);
  });
});

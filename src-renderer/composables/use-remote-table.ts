/**
 * One composable behind every server-paged NDataTable (orders, channels,
 * approvals, accounts, audit): draft filters vs. applied filters, remote
 * pagination, loading, the last error, and protection against out-of-order
 * answers (only the newest request may update the table). Lists the service
 * answers whole go through `pageOf`; lists paged by a keyset cursor (the
 * audit trail: before_id) through `keysetPages`.
 */
import { computed, reactive, ref, shallowRef, toRaw, type Ref, type ShallowRef, type UnwrapRef } from 'vue';
import { toError } from './use-api-error';
import { LIST_PAGE_SIZES } from '../../src-shared/constants';

export interface RemoteQuery<F> {
  page: number;
  limit: number;
  filters: F;
}

export interface RemotePage<Row> {
  list: Row[];
  total: number;
}

export interface RemoteTableOptions<Row, F extends object> {
  fetch: (query: RemoteQuery<F>) => Promise<RemotePage<Row>>;
  /** Fresh default filters (called for the initial state and by reset()). */
  filters: () => F;
  rowKey: (row: Row) => string | number;
  pageSize?: number;
  pageSizes?: number[];
  /** Load as soon as the composable is created (default true). */
  immediate?: boolean;
  /** The page-number jumper (default true); a keyset list can only step page by page. */
  quickJumper?: boolean;
}

export interface RemotePagination {
  page: number;
  pageSize: number;
  itemCount: number;
  pageSizes: number[];
  showSizePicker: boolean;
  showQuickJumper: boolean;
}

export interface RemoteTable<Row, F extends object> {
  rows: ShallowRef<Row[]>;
  total: Ref<number>;
  loading: Ref<boolean>;
  error: ShallowRef<Error | null>;
  /** What the filter form edits; applied by search(). */
  filters: UnwrapRef<F>;
  /** What the rows on screen were fetched with (export uses this). */
  appliedFilters: ShallowRef<F>;
  pagination: RemotePagination;
  /** v-bind on NDataTable. */
  tableProps: Ref<{
    remote: true;
    data: Row[];
    loading: boolean;
    pagination: RemotePagination;
    rowKey: (row: Row) => string | number;
    'onUpdate:page': (page: number) => void;
    'onUpdate:pageSize': (size: number) => void;
  }>;
  /** Applies the draft filters and goes back to page 1. */
  search(): Promise<void>;
  /** Restores default filters and searches. */
  reset(): Promise<void>;
  /** Fetches the current page again with the applied filters. */
  reload(): Promise<void>;
  setPage(page: number): Promise<void>;
  setPageSize(size: number): Promise<void>;
}

/** One page of a list the service answers whole (not paged): the table still pages it. */
export function pageOf<Row>(list: readonly Row[], page: number, limit: number): RemotePage<Row> {
  return { list: list.slice((page - 1) * limit, page * limit), total: list.length };
}

export interface KeysetQuery<F, C> {
  /** Where the page starts (the previous page's `next`); undefined: the newest. */
  cursor: C | undefined;
  limit: number;
  filters: F;
}

export interface KeysetPage<Row, C> {
  list: Row[];
  /** Where the next (older) page starts, or null at the end. */
  next: C | null;
}

/**
 * A keyset-paged list (no total, no offsets) behind the table's page numbers: page n starts at the
 * cursor page n-1 ended with, remembered per applied filters and page size (a new search forgets
 * them). Pages further on than the next one are reached by walking. The total it reports is what is
 * known: the rows up to this page, plus one while a next page exists, so the pager offers exactly
 * one page more.
 */
export function keysetPages<Row, F, C>(fetchPage: (query: KeysetQuery<F, C>) => Promise<KeysetPage<Row, C>>): (query: RemoteQuery<F>) => Promise<RemotePage<Row>> {
  let known: { filters: F; limit: number; cursors: (C | undefined)[] } | null = null;
  return async ({ page, limit, filters }) => {
    if (!known || known.filters !== filters || known.limit !== limit) known = { filters, limit, cursors: [undefined] };
    const state = known;
    // Walk from the furthest known page start to the one asked for.
    let at = Math.min(page, state.cursors.length);
    for (;;) {
      const result = await fetchPage({ cursor: state.cursors[at - 1], limit, filters });
      if (result.next !== null) state.cursors[at] = result.next;
      else state.cursors.length = at;
      if (at === page || result.next === null) {
        return { list: at === page ? result.list : [], total: (at - 1) * limit + result.list.length + (result.next !== null ? 1 : 0) };
      }
      at++;
    }
  };
}

function copyFilters<F extends object>(value: F): F {
  // Filters hold plain values and arrays (date ranges); a structured clone keeps them apart from the draft.
  return structuredClone(toRaw(value));
}

export function useRemoteTable<Row, F extends object>(options: RemoteTableOptions<Row, F>): RemoteTable<Row, F> {
  const rows = shallowRef<Row[]>([]);
  const total = ref(0);
  const loading = ref(false);
  const error = shallowRef<Error | null>(null);
  const filters = reactive(options.filters()) as UnwrapRef<F>;
  const appliedFilters = shallowRef(options.filters()) as ShallowRef<F>;
  const pageSizes = options.pageSizes ?? [...LIST_PAGE_SIZES];
  const pagination = reactive<RemotePagination>({
    page: 1,
    pageSize: options.pageSize ?? 20,
    itemCount: 0,
    pageSizes,
    showSizePicker: true,
    showQuickJumper: options.quickJumper ?? true,
  });

  let latest = 0;

  async function load(): Promise<void> {
    const ticket = ++latest;
    loading.value = true;
    error.value = null;
    try {
      const result = await options.fetch({ page: pagination.page, limit: pagination.pageSize, filters: appliedFilters.value });
      if (ticket !== latest) return;
      const lastPage = Math.max(1, Math.ceil(result.total / pagination.pageSize));
      if (result.list.length === 0 && result.total > 0 && pagination.page > lastPage) {
        // The list shrank under us (filters elsewhere, deletions): show the last page that exists.
        pagination.page = lastPage;
        return load();
      }
      rows.value = result.list;
      total.value = result.total;
      pagination.itemCount = result.total;
    } catch (err) {
      if (ticket !== latest) return;
      error.value = toError(err);
    } finally {
      if (ticket === latest) loading.value = false;
    }
  }

  async function search(): Promise<void> {
    appliedFilters.value = copyFilters(filters as F);
    pagination.page = 1;
    await load();
  }

  async function reset(): Promise<void> {
    const fresh = options.filters();
    for (const key of Object.keys(filters as object)) {
      if (!(key in fresh)) delete (filters as Record<string, unknown>)[key];
    }
    Object.assign(filters as object, fresh);
    await search();
  }

  async function setPage(page: number): Promise<void> {
    pagination.page = page;
    await load();
  }

  async function setPageSize(size: number): Promise<void> {
    pagination.pageSize = size;
    pagination.page = 1;
    await load();
  }

  const tableProps = computed(() => ({
    remote: true as const,
    data: rows.value,
    loading: loading.value,
    pagination,
    rowKey: options.rowKey,
    'onUpdate:page': (page: number) => void setPage(page),
    'onUpdate:pageSize': (size: number) => void setPageSize(size),
  }));

  if (options.immediate !== false) void load();

  return { rows, total, loading, error, filters, appliedFilters, pagination, tableProps, search, reset, reload: load, setPage, setPageSize };
}

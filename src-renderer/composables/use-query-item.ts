/**
 * The item a page's drawer shows, kept in the route's query (`?order=…` on
 * the orders page, `?id=…` on the approvals page): a link or a reload opens
 * it again, and a link followed while the page is open switches to it.
 * Opening and closing replace the query, so they add no history entries.
 */
import { onMounted, ref, watch, type Ref } from 'vue';
import { useRoute, useRouter } from 'vue-router';

export function useQueryItem<T extends string | number>(key: string, parse: (raw: string) => T | null) {
  const route = useRoute();
  const router = useRouter();
  const current = ref(null) as Ref<T | null>;

  function fromQuery(): T | null {
    const raw = route.query[key];
    return typeof raw === 'string' ? parse(raw) : null;
  }

  function open(item: T): void {
    current.value = item;
    void router.replace({ query: { ...route.query, [key]: String(item) } });
  }

  function close(): void {
    current.value = null;
    const { [key]: _closed, ...rest } = route.query;
    void router.replace({ query: rest });
  }

  onMounted(() => {
    current.value = fromQuery();
  });
  watch(
    () => route.query[key],
    () => {
      const item = fromQuery();
      if (item !== null && item !== current.value) current.value = item;
    },
  );

  return { current, open, close };
}

/** A query value that must be a positive integer id (anything else opens nothing). */
export function positiveIdOf(raw: string): number | null {
  const id = Number(raw);
  return Number.isInteger(id) && id > 0 ? id : null;
}

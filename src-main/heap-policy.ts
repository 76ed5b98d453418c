/**
 * The host process's garbage-collection policy: V8's allocation-site
 * pretenuring off.
 *
 * Why: V8 watches where objects are allocated and, once most objects of one
 * allocation site survive young-generation collections, allocates that site's
 * objects in the old generation from then on (the decision is not taken
 * back). A host that starts cold and takes a burst of requests keeps each
 * request's objects (database rows, order views) alive across several
 * collections while its code is still being compiled, so V8 pretenures
 * exactly the objects that, once warm, die within their request. From then
 * on every page of rows goes to the old generation, and the young strings
 * those dead old rows still point at survive until the next major
 * collection: on PostgreSQL's list page 1 each young collection took 3 ms
 * instead of 1–2 with it off (docs/benchmarks.md, "Pretenuring"). A request/response server
 * has no allocation site whose objects mostly outlive their request, so it
 * loses nothing by it.
 */
import v8 from 'node:v8';

const NO_PRETENURING_FLAG = '--no-allocation-site-pretenuring';

/**
 * Turns pretenuring off for this process, before the host answers requests.
 * V8 reads the flag at every collection, so setting it at run time takes
 * effect (not every V8 flag does: heap-policy.test.ts checks this one).
 */
export function applyHostHeapPolicy(): void {
  v8.setFlagsFromString(NO_PRETENURING_FLAG);
}

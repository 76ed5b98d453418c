/**
 * Hash history: the bundle is served from /console/ (no SPA fallback on the
 * server) and from the desktop's app:// protocol; a hash route works in both.
 */
import { createRouter, createWebHashHistory, type RouteLocationRaw, type RouteRecordRaw } from 'vue-router';
import type { MessageKey } from '../i18n';

declare module 'vue-router' {
  interface RouteMeta {
    /** Menu and document title. */
    title: MessageKey;
    /** Needs a current merchant (the switcher). */
    merchant?: boolean;
  }
}

export const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/dashboard' },
  { path: '/dashboard', name: 'dashboard', component: () => import('../views/dashboard/index.vue'), meta: { title: 'app.menu.dashboard', merchant: true } },
  { path: '/orders', name: 'orders', component: () => import('../views/orders/index.vue'), meta: { title: 'app.menu.orders', merchant: true } },
  { path: '/orders/new-buy', name: 'buy-order', component: () => import('../views/buy-order/index.vue'), meta: { title: 'app.menu.buyOrder', merchant: true } },
  { path: '/orders/new-sell', name: 'sell-order', component: () => import('../views/sell-order/index.vue'), meta: { title: 'app.menu.sellOrder', merchant: true } },
  { path: '/channels', name: 'channels', component: () => import('../views/channels/index.vue'), meta: { title: 'app.menu.channels' } },
  { path: '/regions', name: 'regions', component: () => import('../views/regions/index.vue'), meta: { title: 'app.menu.regions' } },
  { path: '/settings', name: 'settings', component: () => import('../views/settings/index.vue'), meta: { title: 'app.menu.settings' } },
  { path: '/:pathMatch(.*)*', redirect: '/dashboard' },
];

/** The orders page with one order's detail drawer open (the page opens the drawer for `?order=`). */
export function orderDetailRoute(orderNo: string): RouteLocationRaw {
  return { name: 'orders', query: { order: orderNo } };
}

export function createAppRouter() {
  return createRouter({ history: createWebHashHistory(), routes });
}

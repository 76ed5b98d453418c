/**
 * Hash history: the bundle is served from /console/ (no SPA fallback on the
 * server) and from the desktop's app:// protocol; a hash route works in both.
 * The one-time links the service prints (`#/setup?token=…`,
 * `#/set-password?token=…`) are routes too, so their token stays in the
 * fragment and never reaches a server log.
 */
import { createRouter, createWebHashHistory, type RouteLocationRaw, type RouteRecordRaw } from 'vue-router';
import type { ConsoleMethod } from '../../src-shared/console-api/methods';
import type { MessageKey } from '../i18n';

declare module 'vue-router' {
  interface RouteMeta {
    /** Menu and document title. */
    title: MessageKey;
    /** Needs a current merchant (the switcher). */
    merchant?: boolean;
    /** Outside the shell and without a session: sign-in, first-owner setup, password links. */
    bare?: boolean;
    /** The call the page is built on: without it the menu hides the page and the page says so. */
    requires?: ConsoleMethod;
  }
}

export const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/dashboard' },
  { path: '/sign-in', name: 'sign-in', component: () => import('../views/sign-in/index.vue'), meta: { title: 'signIn.title', bare: true } },
  { path: '/setup', name: 'setup', component: () => import('../views/setup/index.vue'), meta: { title: 'setup.title', bare: true } },
  { path: '/set-password', name: 'set-password', component: () => import('../views/set-password/index.vue'), meta: { title: 'setPassword.title', bare: true } },
  {
    path: '/dashboard',
    name: 'dashboard',
    component: () => import('../views/dashboard/index.vue'),
    meta: { title: 'app.menu.dashboard', merchant: true, requires: 'getDashboardStats' },
  },
  { path: '/orders', name: 'orders', component: () => import('../views/orders/index.vue'), meta: { title: 'app.menu.orders', merchant: true, requires: 'listOrders' } },
  {
    path: '/orders/new-buy',
    name: 'buy-order',
    component: () => import('../views/buy-order/index.vue'),
    meta: { title: 'app.menu.buyOrder', merchant: true, requires: 'createOrder' },
  },
  {
    path: '/orders/new-sell',
    name: 'sell-order',
    component: () => import('../views/sell-order/index.vue'),
    meta: { title: 'app.menu.sellOrder', merchant: true, requires: 'requestWithdrawal' },
  },
  { path: '/channels', name: 'channels', component: () => import('../views/channels/index.vue'), meta: { title: 'app.menu.channels', requires: 'listPayChannels' } },
  { path: '/regions', name: 'regions', component: () => import('../views/regions/index.vue'), meta: { title: 'app.menu.regions' } },
  { path: '/approvals', name: 'approvals', component: () => import('../views/approvals/index.vue'), meta: { title: 'app.menu.approvals', requires: 'listApprovals' } },
  { path: '/audit', name: 'audit', component: () => import('../views/audit/index.vue'), meta: { title: 'app.menu.audit', requires: 'listAuditLog' } },
  { path: '/accounts', name: 'accounts', component: () => import('../views/accounts/index.vue'), meta: { title: 'app.menu.accounts', requires: 'listAccounts' } },
  { path: '/account', name: 'account', component: () => import('../views/account/index.vue'), meta: { title: 'app.menu.account' } },
  { path: '/settings', name: 'settings', component: () => import('../views/settings/index.vue'), meta: { title: 'app.menu.settings' } },
  { path: '/:pathMatch(.*)*', redirect: '/dashboard' },
];

/** The orders page with one order's detail drawer open (the page opens the drawer for `?order=`). */
export function orderDetailRoute(orderNo: string): RouteLocationRaw {
  return { name: 'orders', query: { order: orderNo } };
}

/** The approvals inbox with one request's drawer open (`?id=`). */
export function approvalRoute(id: number): RouteLocationRaw {
  return { name: 'approvals', query: { id: String(id) } };
}

export function createAppRouter() {
  return createRouter({ history: createWebHashHistory(), routes });
}

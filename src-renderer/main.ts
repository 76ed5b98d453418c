/** Console entry: one API handle (IPC in the desktop, HTTP in a browser), Pinia, typed i18n, hash router. */
import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { CONSOLE_API_KEY, createConsoleApiHandle } from './api/console-api';
import { createAppI18n } from './i18n';
import { createAppRouter } from './router';
import { storedLocale } from './stores/preferences-store';
import './styles.css';

const app = createApp(App);
app.provide(CONSOLE_API_KEY, createConsoleApiHandle());
app.use(createPinia());
app.use(createAppI18n(storedLocale()));
app.use(createAppRouter());
app.mount('#app');

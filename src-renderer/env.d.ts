/// <reference types="vite/client" />
// window.consoleApi (the desktop preload's bridge) is declared by src-shared/console-api/desktop-bridge.ts.

declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}

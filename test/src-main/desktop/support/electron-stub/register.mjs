// Node loader hook for the bundle smoke test: `import ... from "electron"` in the
// built main bundle resolves to stub.mjs (Electron's runtime is not available here).
import { register } from 'node:module';

register(new URL('./hooks.mjs', import.meta.url));

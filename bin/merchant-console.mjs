#!/usr/bin/env node
// Runs the CLI from the TypeScript sources through tsx, so a checkout works
// right after `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src-main/cli/index.ts');

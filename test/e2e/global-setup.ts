/** Builds the browser console before the e2e tests when it is missing or stale. */
import { ensureConsoleBuild } from '../../scripts/ensure-console-build';

export default function setup(): void {
  ensureConsoleBuild({ quiet: true });
}

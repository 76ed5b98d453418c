import { buildHttpApp, normaliseBasePath } from '../../http/server';
import { openApiDocumentOf } from '../../http/openapi/reference-routes';
import { RATE_LIMITS_OFF } from '../../http/rate-limit';
import { defineCommand, listenerBaseUrl, parsedOption, withService } from '../command';

/**
 * `openapi`: the document the listener serves at {base_path}/openapi.json,
 * built the same way (from the routes of a listener that is set up but never
 * listens), for the base path and address this data dir's listener uses.
 */
export const openapiCommand = defineCommand({
  name: 'openapi',
  summary: 'print the OpenAPI 3.1 document of the HTTP API (merchant, regions, channel notifications, checkout)',
  usage:
    'openapi [--base-path /addons/paychannel] [--json]\n' +
    '  base path and server URL default to the listener settings stored in the data dir (the running serve\'s address, if any);\n' +
    '  --json prints it on one line',
  options: { 'base-path': { type: 'string' } },
  positionals: 0,
  async run(args) {
    const basePathFlag = parsedOption(args, 'base-path', normaliseBasePath);
    return withService(args, async (service) => {
      const app = buildHttpApp(service, {
        basePath: basePathFlag ?? (await service.store.read((tx) => service.services.settings.listener(tx))).base_path,
        publicUrl: (await listenerBaseUrl(service, args.dataDir)).url,
        console: false,
        rateLimits: RATE_LIMITS_OFF,
      });
      try {
        await app.ready();
        return openApiDocumentOf(app);
      } finally {
        await app.close();
      }
    });
  },
});

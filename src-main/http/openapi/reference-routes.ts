/**
 * The API reference on the listener (docs/api.md, "API reference"):
 *   GET {base_path}/openapi.json  the OpenAPI 3.1 document (openapi-document.ts)
 *   GET {base_path}/docs/         a readable page of it: Swagger UI, served
 *                                 from the swagger-ui-dist package (no CDN,
 *                                 works offline), under its own strict CSP
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildOpenApiDocument, type DocumentOptions, type OpenApiDocument } from './openapi-document';
import { routesOf, type RouteDoc } from './route-doc';

export const OPENAPI_JSON = '/openapi.json';
export const REFERENCE_PAGE = '/docs/';

/**
 * Swagger UI needs its own script and style files and nothing else: no
 * inline script or style, no other origin. `img-src data:` for the icons its
 * style sheet inlines; `connect-src 'self'` for the document and "Try it out".
 */
export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

const PAGE_HEADERS: Record<string, string> = {
  'content-security-policy': REFERENCE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API 参考 · API reference · merchant-console</title>
<link rel="stylesheet" href="swagger-ui.css">
</head>
<body>
<noscript><p lang="zh-CN">此页面需要 JavaScript。文档本身：<a href="../openapi.json">openapi.json</a></p><p lang="en">This page needs JavaScript. The document itself: <a href="../openapi.json">openapi.json</a></p></noscript>
<div id="reference"></div>
<script src="swagger-ui-bundle.js"></script>
<script src="reference.js"></script>
</body>
</html>
`;

// A file of its own: the CSP allows no inline script. validatorUrl null: Swagger UI would otherwise send the document to a remote validator.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '../openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    defaultModelsExpandDepth: 0,
  });
});
`;

/** Where swagger-ui-dist is installed (resolved, so it works from the CLI bundle and the desktop app too). */
export function swaggerUiDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

interface Asset {
  type: string;
  body: () => Buffer;
}

function fileAsset(name: string, type: string): Asset {
  let cached: Buffer | undefined;
  return { type, body: () => (cached ??= fs.readFileSync(path.join(swaggerUiDir(), name))) };
}

const ASSETS: Record<string, Asset> = {
  'swagger-ui-bundle.js': fileAsset('swagger-ui-bundle.js', 'text/javascript; charset=utf-8'),
  'swagger-ui.css': fileAsset('swagger-ui.css', 'text/css; charset=utf-8'),
  'reference.js': { type: 'text/javascript; charset=utf-8', body: () => Buffer.from(INIT_SCRIPT, 'utf8') },
};

const etags = new WeakMap<Asset, string>();
function etagOf(asset: Asset): string {
  let etag = etags.get(asset);
  if (etag === undefined) etags.set(asset, (etag = `"${createHash('sha256').update(asset.body()).digest('base64url').slice(0, 27)}"`));
  return etag;
}

const documentOfApp = new WeakMap<FastifyInstance, () => OpenApiDocument>();

/** The document `app` serves at {base_path}/openapi.json; call once the app is ready (every route registered). */
export function openApiDocumentOf(app: FastifyInstance): OpenApiDocument {
  const documentOf = documentOfApp.get(app);
  if (!documentOf) throw new Error('this app has no API reference routes');
  return documentOf();
}

const documentDoc: RouteDoc = {
  tag: 'reference',
  operationId: 'openApiDocument',
  summary: 'This OpenAPI 3.1 document',
  description: 'Generated from the routes the listener serves and the zod schemas they validate with. `merchant-console openapi` prints it too.',
  responses: { 200: { description: 'The document.', jsonSchema: { type: 'object', required: ['openapi', 'info', 'paths'] } } },
};

const pageDoc: RouteDoc = {
  tag: 'reference',
  operationId: 'apiReferencePage',
  summary: 'This document as a readable page (Swagger UI)',
  description: 'Served from the package (no CDN; works offline), under its own Content-Security-Policy.',
  responses: { 200: { description: 'The page.', html: true } },
};

export function registerReferenceRoutes(app: FastifyInstance, prefix: string, options: Omit<DocumentOptions, 'basePath'>): void {
  let json: string | undefined;
  let document: OpenApiDocument | undefined;
  const documentOf = () => (document ??= buildOpenApiDocument(routesOf(app), { ...options, basePath: prefix }));
  documentOfApp.set(app, documentOf);

  app.get(`${prefix}${OPENAPI_JSON}`, { config: { openapi: documentDoc } }, async (_request, reply) => {
    json ??= JSON.stringify(documentOf());
    return reply.header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').type('application/json; charset=utf-8').send(json);
  });

  // Relative links on the page need the trailing slash.
  app.get(`${prefix}/docs`, { config: { openapi: false } }, async (_request, reply) => reply.redirect('docs/', 302));
  app.get(`${prefix}${REFERENCE_PAGE}`, { config: { openapi: pageDoc } }, async (_request, reply) =>
    reply.headers(PAGE_HEADERS).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(PAGE),
  );

  for (const [name, asset] of Object.entries(ASSETS)) {
    app.get(`${prefix}${REFERENCE_PAGE}${name}`, { config: { openapi: false } }, async (request: FastifyRequest, reply: FastifyReply) => {
      // Revalidated by a hash of the content: 1.7 MB of script is sent again only after an upgrade.
      const etag = etagOf(asset);
      reply.headers(PAGE_HEADERS).header('cache-control', 'no-cache').header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type(asset.type).send(asset.body());
    });
  }
}

/**
 * What a route tells the OpenAPI document about itself. Routes carry it in
 * their Fastify route options (`config: { openapi }`); the listener collects
 * every route as it is registered (collectRouteDocs), so the document
 * (openapi-document.ts) lists exactly what the listener serves, from the
 * same zod schemas the handlers validate with.
 */
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';

export type DocTag = 'merchant' | 'regions' | 'channels' | 'checkout' | 'reference';

/** A header of a request or response. */
export interface HeaderDoc {
  description: string;
  /** Request headers: validated by the route with this schema (or only documented). */
  schema?: z.ZodType;
  required?: boolean;
}

export type ResponseDoc = {
  description: string;
  headers?: Record<string, HeaderDoc>;
} & (
  /** The success envelope `{code: 1, msg, data[, time]}` around `envelope` (data); `message`: msg, default success. */
  | { envelope: z.ZodType; withTime?: boolean; message?: string }
  /** An HTML page. */
  | { html: true }
  /** A plain JSON body (not an envelope), given as JSON Schema. */
  | { jsonSchema: Record<string, unknown> }
  /** No body. */
  | { empty: true }
);

export interface RouteDoc {
  tag: DocTag;
  operationId: string;
  summary: string;
  description?: string;
  /** Signed by the merchant (docs/api.md, "Signing"): the four auth members are in the JSON body. */
  signed?: boolean;
  /** Path parameters, by the name in the route's URL (`:token` → `token`). */
  params?: Record<string, { description: string; schema: z.ZodType }>;
  /** An object schema of the query-string parameters (io: input). */
  query?: z.ZodType;
  headers?: Record<string, HeaderDoc>;
  body?: { schema: z.ZodType; mediaType?: string; description?: string; required?: boolean };
  /** Success (and page) answers by status. */
  responses: Record<number, ResponseDoc>;
  /**
   * HTTP statuses of the error envelopes this route answers with besides the
   * ones every route can give (429, 500, 503; for JSON bodies 400, 413, 415).
   */
  errors?: number[];
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's entry in the OpenAPI document; false: deliberately left out (static assets). */
    openapi?: RouteDoc | false;
  }
}

export interface CollectedRoute {
  method: string;
  /** Fastify's URL: `/pay/:token`. */
  url: string;
  doc: RouteDoc | false | undefined;
}

const collected = new WeakMap<FastifyInstance, CollectedRoute[]>();

/** Starts recording the routes registered on `app` from now on (call before any route is added). */
export function collectRouteDocs(app: FastifyInstance): void {
  const routes: CollectedRoute[] = [];
  collected.set(app, routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) routes.push({ method: String(method).toUpperCase(), url: route.url, doc: route.config?.openapi });
  });
}

/** The routes registered on `app` so far. */
export function routesOf(app: FastifyInstance): readonly CollectedRoute[] {
  const routes = collected.get(app);
  if (!routes) throw new Error('the OpenAPI route collection was not started on this app');
  return routes;
}

/** `/pay/:token/pay` → `/pay/{token}/pay`. */
export function openApiPath(fastifyUrl: string): string {
  return fastifyUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

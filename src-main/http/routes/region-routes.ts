/**
 * The region endpoints of the spec (6–9). Public reference data: no merchant
 * signature. Fixed at the host root, whatever the merchant base path is.
 */
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import {
  cityListQuery,
  districtListQuery,
  provinceListQuery,
  regionDataQuery,
  regionEntryList,
  regionTree,
} from '../../../src-shared/schemas/region-api';
import { parseOrThrow } from '../../../src-shared/validation/parse';
import { negotiateEncoding, REGION_DATA_CACHE_CONTROL } from '../../regions/region-payload';
import type { RegionService } from '../../regions/region-service';
import { envelopeJsonSchema, successEnvelope } from '../envelope';
import { singleValuedQuery } from '../merchant-route';
import type { RouteDoc } from '../openapi/route-doc';

export const REGION_PATH_PREFIX = '/addons/paychannel/channel/alpha';

/** The API reference's entry of a region endpoint. */
function regionDoc(operationId: string, summary: string, query: z.ZodType, data: z.ZodType, extra: Partial<RouteDoc> = {}): RouteDoc {
  return {
    tag: 'regions',
    operationId,
    summary,
    query,
    responses: { 200: { description: 'The data, codes and names in code order.', envelope: data } },
    errors: [400, 404],
    ...extra,
  };
}

export function registerRegionRoutes(app: FastifyInstance, regions: RegionService): void {
  const listSchema = { response: { 200: envelopeJsonSchema(regionEntryList) } };

  // The body is the prepared buffer; the schema documents it (buffers bypass the serializer).
  const regionDataSchema = { response: { 200: envelopeJsonSchema(regionTree), 304: { description: 'Not Modified: no body', type: 'null' } } };
  const etag = { description: 'Strong, from the content; the gzip and brotli bodies carry `"<same>-gzip"` / `"<same>-br"`.' };
  // HEAD is declared, not left to Fastify's generated HEAD route: that one stamps `Content-Length: 0` on a 304,
  // which RFC 9110 §8.6 forbids (only the 200's length may be sent). Node sends no body for HEAD either way.
  app.route({
    method: ['GET', 'HEAD'],
    url: `${REGION_PATH_PREFIX}/regionData`,
    schema: regionDataSchema,
    config: {
      openapi: regionDoc('regionData', 'The whole province → city → district tree', regionDataQuery, regionTree, {
        description: 'Served from a response prepared once per process, brotli or gzip by Accept-Encoding; revalidate with If-None-Match. HEAD is answered too.',
        headers: {
          'If-None-Match': { description: 'Any ETag of this data (weak form, lists and `*` accepted): 304 without a body.' },
          'Accept-Encoding': { description: '`br` preferred over `gzip` at equal q-values; otherwise the body is sent uncompressed.' },
        },
        responses: {
          200: {
            description: 'The tree: `{province: {val, items: {city: {val, items: {district: code}}}}}`, every level in code order.',
            envelope: regionTree,
            headers: { ETag: etag, 'Cache-Control': { description: `\`${REGION_DATA_CACHE_CONTROL}\`` }, Vary: { description: '`Accept-Encoding`' } },
          },
          304: { description: 'Not Modified: If-None-Match named this data.', empty: true, headers: { ETag: etag } },
        },
        errors: [400],
      }),
    },
    handler: async (request, reply) => {
      parseOrThrow(regionDataQuery, singleValuedQuery(request.query), 'query');
      const { payload } = regions;
      const encoding = negotiateEncoding(request.headers['accept-encoding']);
      reply.header('Vary', 'Accept-Encoding').header('Cache-Control', REGION_DATA_CACHE_CONTROL).header('ETag', payload.etagFor(encoding));
      if (payload.matches(request.headers['if-none-match'])) return reply.code(304).send();
      const body = await payload.body(encoding);
      reply.header('Content-Type', 'application/json; charset=utf-8');
      if (encoding !== 'identity') reply.header('Content-Encoding', encoding);
      return reply.send(body);
    },
  });

  const listRoute = (operationId: string, summary: string, query: z.ZodType, extra: Partial<RouteDoc> = {}) => ({
    schema: listSchema,
    config: { openapi: regionDoc(operationId, summary, query, regionEntryList, extra) },
  });

  app.get(`${REGION_PATH_PREFIX}/provinceList`, listRoute('provinceList', 'The provinces', provinceListQuery, { errors: [400] }), async (request) => {
    parseOrThrow(provinceListQuery, singleValuedQuery(request.query), 'query');
    return successEnvelope(regions.provinces());
  });

  app.get(`${REGION_PATH_PREFIX}/cityList`, listRoute('cityList', 'The cities of a province', cityListQuery), async (request) => {
    const q = parseOrThrow(cityListQuery, singleValuedQuery(request.query), 'query');
    return successEnvelope(regions.cities(q.province));
  });

  app.get(`${REGION_PATH_PREFIX}/districtList`, listRoute('districtList', 'The districts of a city', districtListQuery), async (request) => {
    const q = parseOrThrow(districtListQuery, singleValuedQuery(request.query), 'query');
    return successEnvelope(regions.districts(q.province, q.city));
  });
}

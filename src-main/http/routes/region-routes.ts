/**
 * The region endpoints of the spec (6–9). Public reference data: no merchant
 * signature. Fixed at the host root, whatever the merchant base path is.
 */
import type { FastifyInstance } from 'fastify';
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

export const REGION_PATH_PREFIX = '/addons/paychannel/channel/alpha';

export function registerRegionRoutes(app: FastifyInstance, regions: RegionService): void {
  const listSchema = { response: { 200: envelopeJsonSchema(regionEntryList) } };

  // The body is the prepared buffer; the schema documents it (buffers bypass the serializer).
  const regionDataSchema = { response: { 200: envelopeJsonSchema(regionTree), 304: { description: 'Not Modified: no body', type: 'null' } } };
  // HEAD is declared, not left to Fastify's generated HEAD route: that one stamps `Content-Length: 0` on a 304,
  // which RFC 9110 §8.6 forbids (only the 200's length may be sent). Node sends no body for HEAD either way.
  app.route({
    method: ['GET', 'HEAD'],
    url: `${REGION_PATH_PREFIX}/regionData`,
    schema: regionDataSchema,
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

  app.get(`${REGION_PATH_PREFIX}/provinceList`, { schema: listSchema }, async (request) => {
    parseOrThrow(provinceListQuery, singleValuedQuery(request.query), 'query');
    return successEnvelope(regions.provinces());
  });

  app.get(`${REGION_PATH_PREFIX}/cityList`, { schema: listSchema }, async (request) => {
    const q = parseOrThrow(cityListQuery, singleValuedQuery(request.query), 'query');
    return successEnvelope(regions.cities(q.province));
  });

  app.get(`${REGION_PATH_PREFIX}/districtList`, { schema: listSchema }, async (request) => {
    const q = parseOrThrow(districtListQuery, singleValuedQuery(request.query), 'query');
    return successEnvelope(regions.districts(q.province, q.city));
  });
}

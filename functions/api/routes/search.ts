// Search: accounts by username and display name, or posts by their words; best first, only what you may see.
import { createRoute, z } from '@hono/zod-openapi';
import { optionalAuth, optionalUser } from '../lib/caller.ts';
import { errorResponses } from '../lib/openapi-errors.ts';
import { createRouter } from '../lib/router.ts';
import { rpc } from '../lib/rpc.ts';
import { json, pageOf, PageQuery, PostPage, ProfileSchema } from './schemas.ts';

export const search = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/search',
      operationId: 'search',
      description: 'Searches accounts (?type=users: username and display name, prefix first, then likeness) or posts ' +
        '(?type=posts: every word of the text, among the newest matches), best first; only what you may see. The ' +
        'text is searched literally (no patterns or operators).',
      tags: ['search'],
      summary: 'Search users (by username or display name: prefix, then likeness) or posts (every word), best first',
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: {
        query: PageQuery.extend({
          // The length rule (2 to 100 characters once trimmed) is the database's, with its own error codes.
          q: z.string().max(1000).openapi({
            minLength: 2,
            maxLength: 100,
            description: 'The text, 2 to 100 characters once trimmed, searched literally',
            example: 'ann',
          }),
          type: z.enum(['users', 'posts']),
        }),
      },
      responses: {
        200: json(
          z.union([pageOf(ProfileSchema, 'ProfileSearchPage'), PostPage]),
          'A page of profiles (type=users) or posts (type=posts)',
        ),
        ...errorResponses({ 400: 'Text too short or too long, bad type, cursor or limit' }),
      },
    }),
    async function search(c) {
      const { q, type, cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'search', { p_q: q, p_type: type, p_cursor: cursor, p_limit: limit }),
        200,
      );
    },
  );

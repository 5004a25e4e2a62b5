// The home feed: posts of the accounts you follow and your own, newest first.
import { createRoute } from '@hono/zod-openapi';
import { requireUser } from '../lib/caller.ts';
import { errorResponses } from '../lib/openapi-errors.ts';
import { createRouter } from '../lib/router.ts';
import { rpc } from '../lib/rpc.ts';
import { IsoDate, json, PostPage, RefreshablePageQuery } from './schemas.ts';

export const feed = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/feed',
      operationId: 'getFeed',
      description:
        'Your home feed: the posts of the accounts you follow and your own, those you may see, newest first; ?date= ' +
        'keeps one day.',
      tags: ['feed'],
      security: [{ bearerAuth: [] }],
      summary: 'Posts of the accounts you follow and your own that you may see, newest first (of one day with ?date=)',
      middleware: [requireUser] as const,
      request: { query: RefreshablePageQuery.extend({ date: IsoDate.optional() }) },
      responses: {
        200: json(PostPage, 'A page of posts'),
        ...errorResponses({ 400: 'Bad date, cursor or limit', 401: 'Not signed in' }),
      },
    }),
    async function getFeed(c) {
      const { date, cursor, limit, newer_than: newerThan } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'feed', {
          p_day: date,
          p_cursor: cursor,
          p_limit: limit,
          p_newer_than: newerThan,
        }),
        200,
      );
    },
  );

// The /auth paths. For now only GET /auth/user, the signed-in caller as the database sees them.
import { createRoute, z } from '@hono/zod-openapi';
import { requireUser } from '../lib/caller.ts';
import { asCaller } from '../lib/db.ts';
import { errorResponse } from '../lib/errors.ts';
import { createRouter } from '../lib/router.ts';

const CurrentUserSchema = z
  .object({
    user: z.object({
      id: z.uuid(),
      email: z.string().nullable(),
    }),
  })
  .openapi('CurrentUser');

const getUser = createRoute({
  method: 'get',
  path: '/auth/user',
  tags: ['auth'],
  summary: 'The signed-in user',
  middleware: [requireUser] as const,
  security: [{ bearerAuth: [] }],
  responses: {
    200: { description: 'The caller', content: { 'application/json': { schema: CurrentUserSchema } } },
    401: errorResponse('Missing, invalid or expired access token'),
  },
});

export const auth = createRouter().openapi(getUser, async (c) => {
  const [user] = await asCaller(c.var.deps.sql, c.var.caller, (tx) =>
    tx<{ id: string; email: string | null }[]>`
      select auth.uid() as id, auth.jwt() ->> 'email' as email`);
  return c.json({ user }, 200);
});

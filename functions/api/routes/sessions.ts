// The signed-in user's sessions (devices): list them, end one, end all but this one. Supabase Auth records them;
// supabase/schemas/27_sessions.sql reads and ends them as the caller.
import { createRoute, z } from '@hono/zod-openapi';
import { cacheControl } from '../lib/caching.ts';
import { requireUser } from '../lib/caller.ts';
import { errorResponses } from '../lib/openapi-errors.ts';
import { rpc } from '../lib/rpc.ts';
import { createRouter } from '../lib/router.ts';
import { Id, json, Timestamp } from './schemas.ts';

const tags = ['account'];
const security = [{ bearerAuth: [] }];

const DeviceSession = z.object({
  id: Id,
  created_at: Timestamp.openapi({ description: 'When you signed in' }),
  last_used_at: Timestamp.openapi({ description: 'When its tokens were last refreshed' }),
  user_agent: z.string().nullable().openapi({
    description: 'The client that signed in, as it named itself',
    example: 'DayKeeper/2.1 (iPhone; iOS 19.1)',
  }),
  ip: z.string().nullable().openapi({
    description: 'The address it signed in or last refreshed from',
    example: '203.0.113.7',
  }),
  aal: z.enum(['aal1', 'aal2']).nullable().openapi({ description: 'aal2: stepped up with a second factor' }),
  current: z.boolean().openapi({ description: 'The session of the token this request was made with', example: true }),
}).openapi('DeviceSession');
const Ended = z.object({ ended: z.number().int().openapi({ example: 1 }) }).openapi('EndedSessions');
const SessionParam = z.object({ id: Id.openapi({ param: { name: 'id', in: 'path' } }) });

export const sessions = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/user/sessions',
      operationId: 'listSessions',
      tags,
      security,
      summary: 'Where you are signed in',
      description:
        'Your sessions, the most recently used first (at most 100): when each was made and last used, the client and ' +
        'address, and which one this request comes from. Nobody else sees them.',
      middleware: [requireUser] as const,
      responses: {
        200: json(z.object({ items: z.array(DeviceSession) }), 'Your sessions'),
        ...errorResponses({ 401: 'Not signed in' }),
      },
    }),
    async function listSessions(c) {
      const sessions = await rpc(c.var.deps, c.var.caller, 'my_sessions', {});
      c.header('Cache-Control', cacheControl.none);
      return c.json(sessions, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/user/sessions/{id}',
      operationId: 'endSession',
      tags,
      security,
      summary: 'End one of your sessions',
      description:
        'Signs that device out: its access and refresh tokens are refused from the next request on. Ending this ' +
        "request's own session signs you out. Another account's session is a 404, as one that does not exist. With a " +
        'second ' +
        'factor, ending another session needs an aal2 session.',
      middleware: [requireUser] as const,
      request: { params: SessionParam },
      responses: {
        200: json(Ended, 'Ended'),
        ...errorResponses({
          400: 'Malformed id',
          401: 'Not signed in',
          403: 'Needs a session stepped up with your second factor',
          404: 'No such session of yours',
        }),
      },
    }),
    async function endSession(c) {
      return c.json(await rpc(c.var.deps, c.var.caller, 'end_session', { p_session_id: c.req.valid('param').id }), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/user/sessions/end_others',
      operationId: 'endOtherSessions',
      tags,
      security,
      summary: 'Sign out everywhere else',
      description:
        'Ends every session of yours but the one this request comes from; answers how many ended. With a second ' +
        'factor, this needs an aal2 session.',
      middleware: [requireUser] as const,
      responses: {
        200: json(Ended, 'Ended'),
        ...errorResponses({ 401: 'Not signed in', 403: 'Needs a session stepped up with your second factor' }),
      },
    }),
    async function endOtherSessions(c) {
      return c.json(await rpc(c.var.deps, c.var.caller, 'end_other_sessions', {}), 200);
    },
  );

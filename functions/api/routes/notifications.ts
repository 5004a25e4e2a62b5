// Notifications: what others did that concerns you (written by the database), and marking them read.
import { createRoute, z } from '@hono/zod-openapi';
import { requireUser } from '../lib/caller.ts';
import { errorResponses } from '../lib/openapi-errors.ts';
import { createRouter } from '../lib/router.ts';
import { rpc } from '../lib/rpc.ts';
import {
  AuthorSchema,
  CommentId,
  CommentText,
  Id,
  json,
  pageOf,
  PostId,
  PostText,
  RefreshablePageQuery,
  Timestamp,
} from './schemas.ts';

const tags = ['notifications'];
const security = [{ bearerAuth: [] }];

const NotificationSchema = z
  .object({
    id: Id,
    kind: z.enum([
      'follow',
      'follow_request',
      'follow_accepted',
      'post_like',
      'comment_like',
      'comment',
      'reply',
      'mention',
    ]),
    actor: AuthorSchema,
    post_id: PostId.nullable(),
    comment_id: CommentId.nullable(),
    post_excerpt: PostText.nullable().openapi({
      description: 'The first 140 characters of the post it is about, if any',
    }),
    comment_excerpt: CommentText.nullable().openapi({
      description: 'The first 140 characters of the comment it is about, if any',
    }),
    created_at: Timestamp,
    read_at: Timestamp.nullable(),
  })
  .openapi('Notification');

export const notifications = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/notifications',
      operationId: 'listNotifications',
      description:
        'What others did that concerns you (follows, requests, likes, comments, replies, mentions), newest first; ' +
        '?unread=true for the unread ones. None for your own acts, none across a block, none whose actor or subject ' +
        'you may no longer see.',
      tags,
      security,
      summary: 'Your notifications, newest first (unread only with ?unread=true)',
      middleware: [requireUser] as const,
      request: {
        query: RefreshablePageQuery.extend({
          unread: z.enum(['true', 'false']).optional().openapi({ description: 'Only unread ones' }),
        }),
      },
      responses: {
        200: json(pageOf(NotificationSchema, 'NotificationPage'), 'A page of notifications'),
        ...errorResponses({ 400: 'Bad cursor or limit', 401: 'Not signed in' }),
      },
    }),
    async function listNotifications(c) {
      const { unread, cursor, limit, newer_than: newerThan } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'notifications', {
          p_unread: unread === 'true',
          p_cursor: cursor,
          p_limit: limit,
          p_newer_than: newerThan,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/notifications/read',
      operationId: 'readNotifications',
      description:
        'Marks your notifications read: all of them, or those up to and including one (until: its id); answers how ' +
        'many were marked and how many stay unread.',
      tags,
      security,
      summary: 'Mark your notifications read: all, or up to and including {"until": id}',
      middleware: [requireUser] as const,
      request: {
        body: {
          required: false,
          content: { 'application/json': { schema: z.object({ until: Id.optional() }).strict() } },
        },
      },
      responses: {
        200: json(
          z.object({
            marked: z.number().int().openapi({ example: 3 }),
            unread_notifications: z.number().int().openapi({ example: 0 }),
          }).openapi('NotificationsRead'),
          'How many were marked, how many stay unread',
        ),
        ...errorResponses({ 400: 'Invalid input', 401: 'Not signed in', 404: 'No such notification of yours' }),
      },
    }),
    async function readNotifications(c) {
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'read_notifications', { p_until: c.req.valid('json').until }),
        200,
      );
    },
  );

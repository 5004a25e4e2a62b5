// Moderation, for admins only (the SQL functions check it: 401 anonymous, 403 not an admin).
import { createRoute, z } from '@hono/zod-openapi';
import { requireUser } from '../lib/caller.ts';
import { errorResponses } from '../lib/openapi-errors.ts';
import { createRouter } from '../lib/router.ts';
import { rpc } from '../lib/rpc.ts';
import {
  AccountId,
  AuthorSchema,
  body,
  DeletedSchema,
  Id,
  json,
  orNull,
  pageOf,
  PageQuery,
  PostIdParam,
  PostSchema,
  ProfileSchema,
  ReasonText,
  Timestamp,
  UsernameParam,
  UsernameText,
} from './schemas.ts';

const tags = ['admin'];
const security = [{ bearerAuth: [] }];
const middleware = requireUser;
const adminErrors = errorResponses({
  400: 'Invalid input',
  401: 'Not signed in',
  403: 'Not an admin',
  404: 'Not found',
});
const BanRequest = z.object({
  reason: ReasonText.trim().min(1).max(1000).openapi({ description: 'Why; kept in the ban history' }),
  ban: z.boolean().optional().openapi({ description: 'true bans, false unbans; omit to toggle', example: true }),
});
const HistoryPage = pageOf(
  z.object({
    id: Id,
    element_type: z.enum(['user', 'post']),
    element_id: AccountId,
    action: z.enum(['ban', 'unban']),
    reason: ReasonText,
    created_at: Timestamp,
    admin: orNull(AuthorSchema).openapi({ description: 'The admin who acted through the API' }),
    database_role: z.string().nullable().openapi({
      description: 'Or the database role of a Studio session',
      example: null,
    }),
  }).openapi('BanHistoryEntry'),
  'BanHistoryPage',
);
const ReportGroupPage = pageOf(
  z.object({
    target_type: z.enum(['user', 'post', 'comment']),
    target_id: AccountId,
    reports_count: z.number().int().openapi({ example: 3 }),
    latest_at: Timestamp,
    latest_reports: z.array(
      z.object({ id: Id, reason: ReasonText, created_at: Timestamp, reporter: orNull(AuthorSchema) }),
    ),
  }).openapi('ReportGroup'),
  'ReportGroupPage',
);
const BanPage = pageOf(
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('user'), banned_at: Timestamp, user: ProfileSchema }),
    z.object({ type: z.literal('post'), banned_at: Timestamp, post: PostSchema }),
  ]).openapi('Ban'),
  'BanPage',
);

export const admin = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/admin/reports',
      operationId: 'adminListReports',
      description:
        'Admins only (others: 403). The reported users, posts or comments (?type=), one entry per element, with its ' +
        'count of open reports and the latest reasons, the most recently reported first.',
      tags,
      security,
      middleware,
      summary: 'Reported elements, grouped: count, latest reports; filter with ?type=user|post|comment',
      request: { query: PageQuery.extend({ type: z.enum(['user', 'post', 'comment']).optional() }) },
      responses: { 200: json(ReportGroupPage, 'A page of reported elements'), ...adminErrors },
    }),
    async function adminListReports(c) {
      const { type, cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'admin_reports', { p_type: type, p_cursor: cursor, p_limit: limit }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/admin/report/{reportId}',
      operationId: 'adminDismissReport',
      description: 'Admins only. Closes one report; the element stays as it is. 404 for an unknown report.',
      tags,
      security,
      middleware,
      summary: 'Dismiss a report',
      request: { params: z.object({ reportId: Id.openapi({ param: { name: 'reportId', in: 'path' } }) }) },
      responses: { 200: json(DeletedSchema, 'Dismissed'), ...adminErrors },
    }),
    async function adminDismissReport(c) {
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'admin_dismiss_report', { p_report_id: c.req.valid('param').reportId }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/admin/bans',
      operationId: 'adminListBans',
      description: 'Admins only. What is banned now, the latest ban first: users, posts, or both (?type=).',
      tags,
      security,
      middleware,
      summary: 'Users and posts banned now, latest first; ?type=user|post',
      request: { query: PageQuery.extend({ type: z.enum(['user', 'post']).optional() }) },
      responses: { 200: json(BanPage, 'A page of banned elements'), ...adminErrors },
    }),
    async function adminListBans(c) {
      const { type, cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'admin_bans', { p_type: type, p_cursor: cursor, p_limit: limit }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/admin/banHistory/{elementId}',
      operationId: 'adminGetBanHistory',
      description:
        'Admins only. Every ban and unban of one user or post (its id), with the admin, the time and the reason, ' +
        'newest first; kept after the element is deleted.',
      tags,
      security,
      middleware,
      summary: 'Every ban and unban of one user or post',
      request: {
        params: z.object({ elementId: Id.openapi({ param: { name: 'elementId', in: 'path' } }) }),
        query: PageQuery,
      },
      responses: { 200: json(HistoryPage, 'A page of history'), ...adminErrors },
    }),
    async function adminGetBanHistory(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'admin_ban_history', {
          p_element_id: c.req.valid('param').elementId,
          p_cursor: cursor,
          p_limit: limit,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/admin/banHistoryByAdmin/{username}',
      operationId: 'adminGetBanHistoryByAdmin',
      description: 'Admins only. The bans and unbans one admin made, newest first.',
      tags,
      security,
      middleware,
      summary: 'The bans and unbans one admin made',
      request: { params: UsernameParam, query: PageQuery },
      responses: { 200: json(HistoryPage, 'A page of history'), ...adminErrors },
    }),
    async function adminGetBanHistoryByAdmin(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'admin_ban_history_by_admin', {
          p_username: c.req.valid('param').username,
          p_cursor: cursor,
          p_limit: limit,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/admin/user/{username}/ban',
      operationId: 'adminBanUser',
      description:
        'Admins only. Bans (or with {"ban": false} unbans) an account, with a reason. A banned account disappears ' +
        'for everyone but admins, cannot sign in or refresh, and its sessions end at once. Asking for the state it ' +
        'is already in is a 409; admins cannot be banned.',
      tags,
      security,
      middleware,
      summary: 'Ban or unban a user, with a reason (admins cannot be banned)',
      request: { params: UsernameParam, ...body(BanRequest) },
      responses: {
        200: json(
          z.object({ banned: z.boolean().openapi({ example: true }), user: ProfileSchema }),
          'The resulting state',
        ),
        ...adminErrors,
        ...errorResponses({ 409: 'Already in that state, or an admin' }),
      },
    }),
    async function adminBanUser(c) {
      const { reason, ban } = c.req.valid('json');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'admin_ban_user', {
          p_username: c.req.valid('param').username,
          p_reason: reason,
          p_ban: ban,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/admin/user/{username}',
      operationId: 'adminDeleteUser',
      description:
        'Admins only. Deletes a banned account and everything it owns; its e-mail cannot register again. An account ' +
        'that is not banned: 409.',
      tags,
      security,
      middleware,
      summary: 'Delete a banned user and everything they own; their e-mail cannot register again',
      request: { params: UsernameParam },
      responses: {
        200: json(DeletedSchema.extend({ username: UsernameText }).openapi('DeletedUser'), 'Deleted'),
        ...adminErrors,
        ...errorResponses({ 409: 'The user is not banned' }),
      },
    }),
    async function adminDeleteUser(c) {
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'admin_delete_banned_user', { p_username: c.req.valid('param').username }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/admin/post/{postId}/ban',
      operationId: 'adminBanPost',
      description:
        'Admins only. Bans (or unbans) a post, with a reason: it disappears for everyone but admins and its author, ' +
        'who can no longer edit it. The state it is already in: 409.',
      tags,
      security,
      middleware,
      summary: 'Ban or unban a post, with a reason',
      request: { params: PostIdParam, ...body(BanRequest) },
      responses: {
        200: json(
          z.object({ banned: z.boolean().openapi({ example: true }), post: PostSchema }),
          'The resulting state',
        ),
        ...adminErrors,
        ...errorResponses({ 409: 'Already in that state' }),
      },
    }),
    async function adminBanPost(c) {
      const { reason, ban } = c.req.valid('json');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'admin_ban_post', {
          p_post_id: c.req.valid('param').postId,
          p_reason: reason,
          p_ban: ban,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/admin/post/{postId}',
      operationId: 'adminDeletePost',
      description: 'Admins only. Deletes a banned post with its comments and likes. A post that is not banned: 409.',
      tags,
      security,
      middleware,
      summary: 'Delete a banned post',
      request: { params: PostIdParam },
      responses: {
        200: json(DeletedSchema, 'Deleted'),
        ...adminErrors,
        ...errorResponses({ 409: 'The post is not banned' }),
      },
    }),
    async function adminDeletePost(c) {
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'admin_delete_banned_post', { p_post_id: c.req.valid('param').postId }),
        200,
      );
    },
  );

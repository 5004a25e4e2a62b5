// Posts: create, read, edit, delete, like, likers, report; and comments on them (routes/comments.ts).
import { createRoute, z } from '@hono/zod-openapi';
import { optionalAuth, optionalUser, requireUser } from '../lib/caller.ts';
import { errorResponses } from '../lib/openapi-errors.ts';
import { createRouter } from '../lib/router.ts';
import { IdempotencyHeaders, idempotencyOf } from '../lib/idempotency.ts';
import { rpc } from '../lib/rpc.ts';
import { reportRoute } from './report.ts';
import {
  AuthorSchema,
  body,
  DeletedSchema,
  json,
  pageOf,
  PageQuery,
  PostIdParam,
  PostSchema,
  PostText,
  StoragePath,
  Timestamp,
} from './schemas.ts';

const tags = ['posts'];
const security = [{ bearerAuth: [] }];

const PostFields = {
  body: PostText.trim().min(1).max(1000),
  media: z.array(StoragePath).max(5).openapi({ description: 'Object paths in the storage bucket' }),
  emotion: z.number().int().min(0).max(100).nullable().openapi({ example: 80 }),
  privacy: z.enum(['public', 'close_friends', 'private']),
};

const readErrors = errorResponses({ 400: 'Malformed post id', 404: 'No such post, or not visible to you' });
const writeErrors = errorResponses({
  400: 'Invalid input',
  401: 'Not signed in',
  404: 'No such post, or not visible to you',
});

export const posts = createRouter()
  .openapi(
    createRoute({
      method: 'post',
      path: '/post/create',
      operationId: 'createPost',
      description:
        "Writes a post: text 1 to 1000 characters, up to 5 media paths in the project's storage, an optional emotion " +
        '0..100 and a privacy (public, close_friends, private: you alone; admins see every post). Its day is today ' +
        'in your time zone, and stays so; @mentions of accounts you may see notify them.',
      tags,
      security,
      summary: 'Write a post; its day is today in your time zone',
      middleware: [requireUser] as const,
      request: {
        headers: IdempotencyHeaders,
        ...body(
          z.object({
            body: PostFields.body,
            media: PostFields.media.optional(),
            emotion: PostFields.emotion.optional(),
            privacy: PostFields.privacy.optional(),
          }).strict(),
        ),
      },
      responses: {
        201: json(PostSchema, 'The new post'),
        ...errorResponses({
          400: 'Invalid input',
          401: 'Not signed in',
          409: 'The Idempotency-Key was sent with another request',
        }),
      },
    }),
    async function createPost(c) {
      const post = c.req.valid('json');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'create_post', {
          p_body: post.body,
          p_media: post.media,
          p_emotion: post.emotion ?? undefined,
          p_privacy: post.privacy,
        }, await idempotencyOf(c.req.valid('header')['idempotency-key'], 'POST', c.req.path, post)),
        201,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/post/{postId}',
      operationId: 'getPost',
      description:
        'A post you may see, with fresh counts (comments_count includes replies) and whether you liked it. 404 when ' +
        'you may not see it, exactly as when it does not exist.',
      tags,
      summary: 'A post with fresh counts and your flags',
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: PostIdParam },
      responses: { 200: json(PostSchema, 'The post'), ...readErrors },
    }),
    async function getPost(c) {
      return c.json(await rpc(c.var.deps, c.var.caller, 'get_post', { p_post_id: c.req.valid('param').postId }), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/post/{postId}',
      operationId: 'updatePost',
      description:
        "Edits your post (body, media, emotion, privacy) and sets edited_at; its day does not change. Another's " +
        'post: 403 if you may see it, else 404. A banned post cannot be edited.',
      tags,
      security,
      summary: 'Edit your post (body, media, emotion, privacy)',
      middleware: [requireUser] as const,
      request: { params: PostIdParam, ...body(z.object(PostFields).partial().strict()) },
      responses: {
        200: json(PostSchema, 'The edited post'),
        ...writeErrors,
        ...errorResponses({ 403: 'Not your post' }),
      },
    }),
    async function updatePost(c) {
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'edit_post', {
          p_post_id: c.req.valid('param').postId,
          p_changes: c.req.valid('json'),
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/post/{postId}',
      operationId: 'deletePost',
      description: 'Deletes your post with its comments, likes and mentions.',
      tags,
      security,
      summary: 'Delete your post with its comments and likes',
      middleware: [requireUser] as const,
      request: { params: PostIdParam },
      responses: { 200: json(DeletedSchema, 'Deleted'), ...writeErrors, ...errorResponses({ 403: 'Not your post' }) },
    }),
    async function deletePost(c) {
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'delete_post', { p_post_id: c.req.valid('param').postId }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/post/{postId}/like',
      operationId: 'likePost',
      description:
        'Likes or unlikes a post you may see: toggles, or takes the wanted state, so a retry is idempotent; answers ' +
        'the resulting state.',
      tags,
      security,
      summary: 'Like or unlike: toggles, or {"like": true|false}',
      middleware: [requireUser] as const,
      request: {
        params: PostIdParam,
        body: {
          required: false,
          content: {
            'application/json': { schema: z.object({ like: z.boolean().optional().openapi({ example: true }) }) },
          },
        },
      },
      responses: { 200: json(PostSchema, 'The post with fresh counts'), ...writeErrors },
    }),
    async function likePost(c) {
      const wanted = c.req.valid('json').like;
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'like_post', { p_post_id: c.req.valid('param').postId, p_like: wanted }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/post/{postId}/likes',
      operationId: 'listPostLikes',
      description:
        "Who liked a post, newest first: only the likers you may see (the post's likes_count includes every like).",
      tags,
      summary: 'Who liked the post (those you may see), newest first',
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: PostIdParam, query: PageQuery },
      responses: {
        200: json(pageOf(AuthorSchema.extend({ liked_at: Timestamp }), 'LikerPage'), 'A page of likers'),
        ...readErrors,
      },
    }),
    async function listPostLikes(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'post_likes', {
          p_post_id: c.req.valid('param').postId,
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
      path: '/post/{postId}/report',
      operationId: 'reportPost',
      ...reportRoute({ tags, reported: 'a post', per: 'post', kind: 'post', params: PostIdParam, errors: writeErrors }),
    }),
    async function reportPost(c) {
      const reason = c.req.valid('json');
      const idempotency = await idempotencyOf(c.req.valid('header')['idempotency-key'], 'POST', c.req.path, reason);
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'report_post', {
          p_post_id: c.req.valid('param').postId,
          p_reason: reason.reason,
        }, idempotency),
        201,
      );
    },
  );

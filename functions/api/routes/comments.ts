// Comments and replies: write, read, list, like, likers, delete, report.
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
  CommentIdParam,
  CommentSchema,
  CommentText,
  DeletedSchema,
  json,
  pageOf,
  PageQuery,
  PostIdParam,
  RefreshablePageQuery,
  Timestamp,
} from './schemas.ts';

const tags = ['comments'];
const security = [{ bearerAuth: [] }];
const CommentBody = z.object({ body: CommentText.trim().min(1).max(500) });
const CommentPage = pageOf(CommentSchema, 'CommentPage');
const readErrors = errorResponses({ 400: 'Malformed id, cursor or limit', 404: 'Not found, or not visible to you' });
const writeErrors = errorResponses({
  400: 'Invalid input',
  401: 'Not signed in',
  404: 'Not found, or not visible to you',
});
const keyReused = errorResponses({ 409: 'The Idempotency-Key was sent with another request' });

export const comments = createRouter()
  .openapi(
    createRoute({
      method: 'post',
      path: '/post/{postId}/comment',
      operationId: 'createComment',
      description:
        'Comments on a post you may see (1 to 500 characters, stored without surrounding spaces). Not possible ' +
        'across a block; a post you may not see is a 404.',
      tags,
      security,
      summary: 'Comment on a post',
      middleware: [requireUser] as const,
      request: { params: PostIdParam, headers: IdempotencyHeaders, ...body(CommentBody) },
      responses: { 201: json(CommentSchema, 'The new comment'), ...writeErrors, ...keyReused },
    }),
    async function createComment(c) {
      const comment = c.req.valid('json');
      const idempotency = await idempotencyOf(c.req.valid('header')['idempotency-key'], 'POST', c.req.path, comment);
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'comment_post', {
          p_post_id: c.req.valid('param').postId,
          p_body: comment.body,
        }, idempotency),
        201,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/post/{postId}/comments',
      operationId: 'listComments',
      description:
        "A post's comments (replies are under each comment), newest first, those whose author you may see. 404 when " +
        'the post is not visible to you.',
      tags,
      summary: "A post's comments (not replies), newest first",
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: PostIdParam, query: RefreshablePageQuery },
      responses: { 200: json(CommentPage, 'A page of comments'), ...readErrors },
    }),
    async function listComments(c) {
      const { cursor, limit, newer_than: newerThan } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'post_comments', {
          p_post_id: c.req.valid('param').postId,
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
      method: 'get',
      path: '/post/comment/{commentId}',
      operationId: 'getComment',
      description:
        'A comment you may see, with its counts and whether you liked it. 404 when you may not see it or its post.',
      tags,
      summary: 'A comment',
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: CommentIdParam },
      responses: { 200: json(CommentSchema, 'The comment'), ...readErrors },
    }),
    async function getComment(c) {
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'get_comment', { p_comment_id: c.req.valid('param').commentId }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/post/comment/{commentId}/replies',
      operationId: 'listReplies',
      description: 'The replies to a comment, newest first, those whose author you may see.',
      tags,
      summary: 'Replies to a comment, newest first',
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: CommentIdParam, query: PageQuery },
      responses: { 200: json(CommentPage, 'A page of replies'), ...readErrors },
    }),
    async function listReplies(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'comment_replies', {
          p_comment_id: c.req.valid('param').commentId,
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
      path: '/post/comment/{commentId}/reply',
      operationId: 'replyToComment',
      description: "Replies to a comment of a post you may see; a reply's parent is a comment of the same post.",
      tags,
      security,
      summary: 'Reply to a comment',
      middleware: [requireUser] as const,
      request: { params: CommentIdParam, headers: IdempotencyHeaders, ...body(CommentBody) },
      responses: { 201: json(CommentSchema, 'The new reply'), ...writeErrors, ...keyReused },
    }),
    async function replyToComment(c) {
      const { deps, caller } = c.var;
      const commentId = c.req.valid('param').commentId;
      const reply = c.req.valid('json');
      const idempotency = await idempotencyOf(c.req.valid('header')['idempotency-key'], 'POST', c.req.path, reply);
      const created = await rpc(
        deps,
        caller,
        'reply_comment',
        { p_comment_id: commentId, p_body: reply.body },
        idempotency,
      ).catch(async (error) => {
        // A parent deleted while the reply was being written fails the insert's policy (42501) or its foreign key
        // (23503): the answer is the final state, the parent's 404, when it is indeed gone.
        const refused = error instanceof Error && ['42501', '23503'].includes((error as { code?: string }).code ?? '');
        if (refused) await rpc(deps, caller, 'get_comment', { p_comment_id: commentId });
        throw error;
      });
      return c.json(created, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/post/comment/{commentId}/like',
      operationId: 'likeComment',
      description:
        'Likes or unlikes a comment you may see: toggles, or takes the wanted state, so a retry is idempotent; ' +
        'answers the resulting state.',
      tags,
      security,
      summary: 'Like or unlike: toggles, or {"like": true|false}',
      middleware: [requireUser] as const,
      request: {
        params: CommentIdParam,
        body: {
          required: false,
          content: {
            'application/json': { schema: z.object({ like: z.boolean().optional().openapi({ example: true }) }) },
          },
        },
      },
      responses: { 200: json(CommentSchema, 'The comment with fresh counts'), ...writeErrors },
    }),
    async function likeComment(c) {
      const wanted = c.req.valid('json').like;
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'like_comment', {
          p_comment_id: c.req.valid('param').commentId,
          p_like: wanted,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/post/comment/{commentId}/likes',
      operationId: 'listCommentLikes',
      description: 'Who liked a comment, newest first: only the likers you may see (the count includes every like).',
      tags,
      summary: 'Who liked the comment (those you may see), newest first',
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: CommentIdParam, query: PageQuery },
      responses: {
        200: json(pageOf(AuthorSchema.extend({ liked_at: Timestamp }), 'CommentLikerPage'), 'A page of likers'),
        ...readErrors,
      },
    }),
    async function listCommentLikes(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'comment_likes', {
          p_comment_id: c.req.valid('param').commentId,
          p_cursor: cursor,
          p_limit: limit,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/post/comment/{commentId}',
      operationId: 'deleteComment',
      description:
        "Deletes a comment with its replies: by its author, the post's author (even after a block either way) or an " +
        'admin. Others: 403 if they may see it, else 404.',
      tags,
      security,
      summary: "Delete a comment and its replies (its author, the post's author, or an admin)",
      middleware: [requireUser] as const,
      request: { params: CommentIdParam },
      responses: {
        200: json(DeletedSchema, 'Deleted'),
        ...writeErrors,
        ...errorResponses({ 403: 'Not yours to delete' }),
      },
    }),
    async function deleteComment(c) {
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'delete_comment', { p_comment_id: c.req.valid('param').commentId }),
        200,
      );
    },
  )
  // Not in the spec, which reports users and posts only: comments are reportable too (docs/PRODUCT.md), and the
  // admins' report lists group them.
  .openapi(
    createRoute({
      method: 'post',
      path: '/post/comment/{commentId}/report',
      operationId: 'reportComment',
      ...reportRoute({
        tags,
        reported: 'a comment',
        per: 'comment',
        kind: 'comment',
        params: CommentIdParam,
        errors: writeErrors,
      }),
    }),
    async function reportComment(c) {
      const reason = c.req.valid('json');
      const idempotency = await idempotencyOf(c.req.valid('header')['idempotency-key'], 'POST', c.req.path, reason);
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'report_comment', {
          p_comment_id: c.req.valid('param').commentId,
          p_reason: reason.reason,
        }, idempotency),
        201,
      );
    },
  );

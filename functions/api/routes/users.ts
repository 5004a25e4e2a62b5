// Profiles and relationships: /:username and its sub-resources, follow requests, close friends, blocks,
// and the days (calendar, posts by day). Each route calls one SQL function as the caller.
import { createRoute, z } from '@hono/zod-openapi';
import { optionalAuth, optionalUser, requireUser } from '../lib/caller.ts';
import { errorResponses } from '../lib/openapi-errors.ts';
import { createRouter } from '../lib/router.ts';
import { idempotencyOf } from '../lib/idempotency.ts';
import { rpc } from '../lib/rpc.ts';
import { reportRoute } from './report.ts';
import {
  AccountId,
  AuthorSchema,
  body,
  Day,
  IsoDate,
  json,
  pageOf,
  PageQuery,
  PostPage,
  ProfileSchema,
  RefreshablePageQuery,
  Timestamp,
  Username,
  UsernameParam,
  UsernameText,
} from './schemas.ts';

const tags = ['users'];
const security = [{ bearerAuth: [] }];
const ListedProfile = ProfileSchema.extend({ since: Timestamp }).openapi('ListedProfile');
const ProfilePage = pageOf(ListedProfile, 'ProfilePage');
const FollowState = z
  .object({ state: z.enum(['following', 'requested', 'none']), user: ProfileSchema })
  .openapi('FollowState');
const CalendarSchema = z
  .object({
    user: AuthorSchema,
    from: Day,
    to: Day,
    days: z.array(
      z.object({
        day: Day,
        count: z.number().int().openapi({ example: 3 }),
        level: z.number().int().min(1).max(4).openapi({ example: 2 }),
      }),
    ),
  })
  .openapi('Calendar');

const MutedAccount = AuthorSchema.extend({
  notifications_only: z.boolean().openapi({ example: false }),
  expires_at: Timestamp.nullable().openapi({ description: 'When the mute ends by itself; null: until you unmute' }),
  since: Timestamp,
}).openapi('MutedAccount');
const MuteRequest = z.object({
  mute: z.boolean().optional().openapi({ description: 'The state you want; omit to toggle', example: true }),
  notifications_only: z.boolean().optional().openapi({
    description: 'Mute only its notifications; its posts stay in your feed and search',
    example: false,
  }),
  duration: z.number().int().min(60).max(366 * 86400).optional()
    .openapi({
      description: 'Seconds until the mute ends by itself (60 to a year); omit to mute until you unmute',
      example: 86400,
    }),
}).openapi('MuteRequest');
const MuteState = z.object({
  muted: z.boolean().openapi({ example: true }),
  notifications_only: z.boolean().openapi({ example: false }),
  expires_at: Timestamp.nullable(),
  user: z.object({ id: AccountId, username: UsernameText }),
}).openapi('MuteState');

const seeErrors = errorResponses({ 400: 'Malformed username', 404: 'No such user, or not visible to you' });
const listErrors = errorResponses({
  400: 'Malformed username, cursor or limit',
  403: 'A private account: only its followers see this',
  404: 'No such user, or not visible to you',
});
const actErrors = errorResponses({
  400: 'Invalid input',
  401: 'Not signed in',
  404: 'No such user, or not visible to you',
});

const optionalBoolean = (name: string, description: string) => ({
  required: false,
  content: {
    'application/json': {
      schema: z.object({ [name]: z.boolean().optional().openapi({ example: true }) }).openapi({ description }),
    },
  },
});

export const users = createRouter()
  .openapi(
    createRoute({
      method: 'get',
      path: '/follow_requests',
      operationId: 'listFollowRequests',
      description: 'The pending follow requests made to you (a private account), newest first. Answer them with POST ' +
        '/{username}/respond_follow.',
      tags,
      security,
      summary: 'Pending follow requests made to you, newest first',
      middleware: [requireUser] as const,
      request: { query: PageQuery },
      responses: {
        200: json(ProfilePage, 'A page of requesters'),
        ...errorResponses({ 400: 'Bad cursor or limit', 401: 'Not signed in' }),
      },
    }),
    async function listFollowRequests(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(await rpc(c.var.deps, c.var.caller, 'follow_requests', { p_cursor: cursor, p_limit: limit }), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/close_friends',
      operationId: 'listCloseFriends',
      description: 'Your close-friends list, newest first; its members are neither asked nor told.',
      tags,
      security,
      summary: 'Your close friends, newest first',
      middleware: [requireUser] as const,
      request: { query: PageQuery },
      responses: {
        200: json(ProfilePage, 'A page of close friends'),
        ...errorResponses({ 400: 'Bad cursor or limit', 401: 'Not signed in' }),
      },
    }),
    async function listCloseFriends(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(await rpc(c.var.deps, c.var.caller, 'close_friends', { p_cursor: cursor, p_limit: limit }), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/close_friends/{username}',
      operationId: 'setCloseFriend',
      description: 'Adds or removes an account on your close-friends list: toggles, or takes the wanted state. Your ' +
        'close_friends posts are visible to them (they must still pass the private-account rule).',
      tags,
      security,
      summary: 'Add or remove a close friend: toggles, or {"close_friend": true|false}',
      middleware: [requireUser] as const,
      request: { params: UsernameParam, body: optionalBoolean('close_friend', 'The state you want; omit to toggle') },
      responses: {
        200: json(
          z.object({ close_friend: z.boolean().openapi({ example: true }), user: ProfileSchema }),
          'The resulting state',
        ),
        ...actErrors,
      },
    }),
    async function setCloseFriend(c) {
      const wanted = c.req.valid('json').close_friend;
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'set_close_friend', {
          p_username: c.req.valid('param').username,
          p_close: wanted,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/blocks',
      operationId: 'listBlocks',
      description: 'The accounts you blocked, newest first (banned accounts are left out).',
      tags,
      security,
      summary: 'Accounts you blocked, newest first',
      middleware: [requireUser] as const,
      request: { query: PageQuery },
      responses: {
        200: json(pageOf(AuthorSchema.extend({ since: Timestamp }), 'BlockPage'), 'A page of blocked accounts'),
        ...errorResponses({ 400: 'Bad cursor or limit', 401: 'Not signed in' }),
      },
    }),
    async function listBlocks(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(await rpc(c.var.deps, c.var.caller, 'blocks', { p_cursor: cursor, p_limit: limit }), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/mutes',
      operationId: 'listMutes',
      description:
        'The accounts you mute now, newest first, with the kind of mute and when it ends (banned accounts are left ' +
        'out). Nobody else sees this list.',
      tags,
      security,
      summary: 'Accounts you mute, newest first',
      middleware: [requireUser] as const,
      request: { query: PageQuery },
      responses: {
        200: json(pageOf(MutedAccount, 'MutePage'), 'A page of muted accounts'),
        ...errorResponses({ 400: 'Bad cursor or limit', 401: 'Not signed in' }),
      },
    }),
    async function listMutes(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(await rpc(c.var.deps, c.var.caller, 'mutes', { p_cursor: cursor, p_limit: limit }), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/date',
      operationId: 'listPostsOfDay',
      description:
        "A user's posts on one day (?day=YYYY-MM-DD, the day in the author's time zone), those you may see; yours " +
        "when no username is given. A private account's: 403 private_account unless you follow it.",
      tags,
      summary: "A user's posts on one day (yours when no username is given)",
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { query: PageQuery.extend({ day: IsoDate, username: Username.optional() }) },
      responses: {
        200: json(PostPage, 'A page of posts'),
        ...listErrors,
        ...errorResponses({ 401: 'No username and not signed in' }),
      },
    }),
    async function listPostsOfDay(c) {
      const { day, username, cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'posts_by_day', {
          p_day: day,
          p_username: username,
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
      path: '/{username}',
      operationId: 'getProfile',
      description:
        'A profile card with its counts and, when you are signed in, your relation to it (viewer: following, ' +
        "requested, follows_you, close_friend). A private account's card stays visible; a banned, unconfirmed or " +
        'blocked one is a 404.',
      tags,
      summary: 'A profile, with your relation to it when signed in',
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: UsernameParam },
      responses: { 200: json(ProfileSchema, 'The profile'), ...seeErrors },
    }),
    async function getProfile(c) {
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'get_profile', { p_username: c.req.valid('param').username }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{username}/follow',
      operationId: 'followUser',
      description:
        'Follows or unfollows an account: toggles, or takes the wanted state. A private account gets a request ' +
        'instead (asking again withdraws it). Nobody follows themself; not across a block.',
      tags,
      security,
      summary: 'Follow (a request, if the account is private) or unfollow: toggles, or {"follow": true|false}',
      middleware: [requireUser] as const,
      request: { params: UsernameParam, body: optionalBoolean('follow', 'The state you want; omit to toggle') },
      responses: { 200: json(FollowState, 'The resulting state'), ...actErrors },
    }),
    async function followUser(c) {
      const wanted = c.req.valid('json').follow;
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'follow', { p_username: c.req.valid('param').username, p_follow: wanted }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{username}/respond_follow',
      operationId: 'respondToFollowRequest',
      description: "Accepts or declines this user's pending follow request to you. No pending request: 404.",
      tags,
      security,
      summary: "Accept or decline this user's follow request",
      middleware: [requireUser] as const,
      request: { params: UsernameParam, ...body(z.object({ accept: z.boolean().openapi({ example: true }) })) },
      responses: {
        200: json(z.object({ state: z.enum(['accepted', 'declined']), user: ProfileSchema }), 'Answered'),
        ...actErrors,
        ...errorResponses({ 404: 'No pending request from this user' }),
      },
    }),
    async function respondToFollowRequest(c) {
      const { accept } = c.req.valid('json');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'respond_follow_request', {
          p_username: c.req.valid('param').username,
          p_accept: accept,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/{username}/follower',
      operationId: 'removeFollower',
      description: 'Stops this user following you.',
      tags,
      security,
      summary: 'Stop this user following you',
      middleware: [requireUser] as const,
      request: { params: UsernameParam },
      responses: { 200: json(z.object({ removed: z.literal(true), user: ProfileSchema }), 'Removed'), ...actErrors },
    }),
    async function removeFollower(c) {
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'remove_follower', { p_username: c.req.valid('param').username }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{username}/followers',
      operationId: 'listFollowers',
      description:
        "An account's accepted followers that you may see, newest first. A private account's: 403 private_account " +
        'unless you follow it.',
      tags,
      summary: 'Accepted followers you may see, newest first',
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: UsernameParam, query: PageQuery },
      responses: { 200: json(ProfilePage, 'A page of followers'), ...listErrors },
    }),
    async function listFollowers(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'followers', {
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
      method: 'get',
      path: '/{username}/following',
      operationId: 'listFollowing',
      description:
        "The accounts an account follows that you may see, newest first. A private account's: 403 private_account " +
        'unless you follow it.',
      tags,
      summary: 'Accounts followed that you may see, newest first',
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: UsernameParam, query: PageQuery },
      responses: { 200: json(ProfilePage, 'A page of accounts'), ...listErrors },
    }),
    async function listFollowing(c) {
      const { cursor, limit } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'following', {
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
      path: '/{username}/block',
      operationId: 'blockUser',
      description:
        'Blocks or unblocks an account: toggles, or takes the wanted state. A block hides each of you from the other ' +
        'and ends follows, requests and close-friend entries both ways.',
      tags,
      security,
      summary:
        'Block or unblock: toggles, or {"block": true|false}. Blocking ends follows and close friendship both ways',
      middleware: [requireUser] as const,
      request: { params: UsernameParam, body: optionalBoolean('block', 'The state you want; omit to toggle') },
      responses: {
        200: json(
          z.object({
            blocked: z.boolean().openapi({ example: true }),
            user: z.object({ id: AccountId, username: UsernameText }),
          }),
          'The resulting state',
        ),
        ...actErrors,
      },
    }),
    async function blockUser(c) {
      const wanted = c.req.valid('json').block;
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'block', { p_username: c.req.valid('param').username, p_block: wanted }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{username}/mute',
      operationId: 'muteUser',
      description:
        "Mutes or unmutes an account: toggles, or takes the wanted state. A muted account's posts leave your feed " +
        'and your post search, and its acts stop notifying you (with notifications_only, only the latter); its ' +
        'profile and posts stay reachable. It is never told. A mute ends after duration seconds if given, or when ' +
        'either of you blocks the other.',
      tags,
      security,
      summary: 'Mute or unmute: toggles, or {"mute": true|false, "notifications_only": bool, "duration": seconds}',
      middleware: [requireUser] as const,
      request: {
        params: UsernameParam,
        body: { required: false, content: { 'application/json': { schema: MuteRequest } } },
      },
      responses: { 200: json(MuteState, 'The resulting state'), ...actErrors },
    }),
    async function muteUser(c) {
      const { mute, notifications_only: notificationsOnly, duration } = c.req.valid('json');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'mute', {
          p_username: c.req.valid('param').username,
          p_mute: mute,
          p_notifications_only: notificationsOnly,
          p_duration: duration,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/{username}/report',
      operationId: 'reportUser',
      ...reportRoute({
        tags,
        reported: 'an account',
        per: 'account',
        kind: 'user',
        params: UsernameParam,
        errors: actErrors,
      }),
    }),
    async function reportUser(c) {
      const report = c.req.valid('json');
      const idempotency = await idempotencyOf(c.req.valid('header')['idempotency-key'], 'POST', c.req.path, report);
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'report_user', {
          p_username: c.req.valid('param').username,
          p_reason: report.reason,
        }, idempotency),
        201,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{username}/calendar',
      operationId: 'getCalendar',
      description:
        'For each day of a range (?from, ?to; the last 365 days by default, at most ten years) the number of the ' +
        "user's posts you may see, with a level 1..4 against the busiest day; days without posts are left out. A " +
        "private account's: 403 private_account unless you follow it.",
      tags,
      summary: 'Posts per day you may see (default: the last 365 days; at most ten years), with a level 1–4',
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: UsernameParam, query: z.object({ from: IsoDate.optional(), to: IsoDate.optional() }) },
      responses: { 200: json(CalendarSchema, 'Days with posts'), ...listErrors },
    }),
    async function getCalendar(c) {
      const { from, to } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'calendar', {
          p_username: c.req.valid('param').username,
          p_from: from,
          p_to: to,
        }),
        200,
      );
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/{username}/posts',
      operationId: 'listUserPosts',
      description:
        "A user's posts that you may see, newest first. A private account's: 403 private_account unless you follow it.",
      tags,
      summary: "A user's posts you may see, newest first",
      security: optionalAuth,
      middleware: [optionalUser] as const,
      request: { params: UsernameParam, query: RefreshablePageQuery },
      responses: { 200: json(PostPage, 'A page of posts'), ...listErrors },
    }),
    async function listUserPosts(c) {
      const { cursor, limit, newer_than: newerThan } = c.req.valid('query');
      return c.json(
        await rpc(c.var.deps, c.var.caller, 'user_posts', {
          p_username: c.req.valid('param').username,
          p_cursor: cursor,
          p_limit: limit,
          p_newer_than: newerThan,
        }),
        200,
      );
    },
  );

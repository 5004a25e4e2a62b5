// GET /user/export: the caller's archive (docs/PRODUCT.md, "Data export"), streamed as one JSON document. The
// database decides what each section holds (private.account_export, as the caller); this writes the sections
// one after another as their rows arrive from a cursor, 500 at a time, so the archive is never held whole.
import { createRoute, z } from '@hono/zod-openapi';
import { requireUser } from '../lib/caller.ts';
import { readInBatchesAs } from '../lib/db.ts';
import { errorResponses } from '../lib/errors.ts';
import { createRouter } from '../lib/router.ts';
import { sql } from '../lib/sql-text.ts';
import {
  AccountId, AuthorSchema, CommentId, CommentSchema, Id, json, OwnEmail, PostId, PostSchema, ProfileSchema, ReasonText, Timestamp,
} from './schemas.ts';

/** The sections after the profile, in the archive's order. */
const sections = [
  'posts', 'comments', 'likes', 'comment_likes', 'following', 'followers', 'close_friends', 'blocks', 'mutes', 'reports', 'notifications',
] as const;
const batch = 500;

const Since = { since: Timestamp };
const Related = AuthorSchema.extend(Since);
const ArchiveSchema = z.object({
  format: z.literal('daykeeper-archive/1'),
  exported_at: Timestamp,
  profile: ProfileSchema.extend({ email: OwnEmail.nullable() }),
  posts: z.array(PostSchema.omit({ viewer: true })),
  comments: z.array(CommentSchema.omit({ viewer: true })),
  likes: z.array(z.object({ post_id: PostId, liked_at: Timestamp })),
  comment_likes: z.array(z.object({ comment_id: CommentId, liked_at: Timestamp })),
  following: z.array(Related.extend({ status: z.enum(['accepted', 'pending']) })).openapi({ description: 'Pending: a follow request you made' }),
  followers: z.array(Related.extend({ status: z.enum(['accepted', 'pending']) })).openapi({ description: 'Pending: a request made to you' }),
  close_friends: z.array(Related),
  blocks: z.array(Related),
  mutes: z.array(Related.extend({ notifications_only: z.boolean().openapi({ example: false }), expires_at: Timestamp.nullable() })),
  reports: z.array(z.object({
    id: Id, target_type: z.enum(['user', 'post', 'comment']), target_user_id: AccountId.nullable(),
    target_post_id: PostId.nullable(), target_comment_id: CommentId.nullable(), reason: ReasonText, created_at: Timestamp,
  })),
  notifications: z.array(z.object({ id: Id, kind: z.string().openapi({ example: 'comment' }), created_at: Timestamp, read_at: Timestamp.nullable() }).passthrough()),
}).openapi('Archive');

const exportRoute = createRoute({
  method: 'get', path: '/user/export', operationId: 'exportAccount', tags: ['account'], security: [{ bearerAuth: [] }],
  summary: 'Download everything your account owns, as one JSON archive',
  description: 'Your profile (with your e-mail), posts, comments, likes, follows both ways and follow requests, close friends, ' +
    'blocks, mutes, the reports you filed and your notifications, newest first in each section, with media paths. Other ' +
    "accounts appear by their public card only, as far as you may see them now: never another account's e-mail, a " +
    "close-friends post of someone else, or who blocked you. Streamed: it starts at once and arrives as it is read.",
  middleware: [requireUser] as const,
  responses: { 200: json(ArchiveSchema, 'The archive'), ...errorResponses({ 401: 'Not signed in' }) },
});

export const accountExport = createRouter().openapi(exportRoute, async (c) => {
  const encoder = new TextEncoder();
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const write = (text: string) => writer.write(encoder.encode(text));
  // The answer starts once the profile is read: a refusal before that (a 401, a 429) is an ordinary error answer.
  let started!: () => void;
  const profileRead = new Promise<void>((resolve) => (started = resolve));
  const reading = readInBatchesAs(c.var.deps, c.var.caller, async (read) => {
    const [profile] = (await Array.fromAsync(read(sql`select item from private.account_export where section = 'profile'`, 1))).flat();
    started();
    await write(`{"format":"daykeeper-archive/1","exported_at":${JSON.stringify(new Date().toISOString())},"profile":${JSON.stringify(profile.item)}`);
    for (const section of sections) {
      await write(`,${JSON.stringify(section)}:[`);
      let separator = '';
      const rows = read(sql`select item from private.account_export where section = ${section} order by at desc, id desc`, batch);
      for await (const chunk of rows) {
        await write(separator + chunk.map((row) => JSON.stringify(row.item)).join(','));
        separator = ',';
      }
      await write(']');
    }
    await write('}');
  });
  // Past the start, a failure can only cut the archive short: the client sees a body that does not parse.
  reading.then(() => writer.close(), (error) => writer.abort(error)).catch(() => undefined);
  await Promise.race([profileRead, reading]);
  return c.body(readable, 200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Disposition': 'attachment; filename="daykeeper-archive.json"',
  }) as never;
});

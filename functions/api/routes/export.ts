// GET /user/export: the caller's archive (docs/PRODUCT.md, "Data export"), streamed as one JSON document. The
// database decides what each section holds (private.account_export_page, as the caller); this writes the sections
// one after another, a page of 500 rows at a time, so the archive is never held whole, however large: each page
// is a statement of its own under the role's timeout, all in one snapshot (lib/db.ts, readPageByPageAs).
import { createRoute, z } from '@hono/zod-openapi';
import { cacheControl } from '../lib/caching.ts';
import { requireUser } from '../lib/caller.ts';
import { readPageByPageAs, type RunStatement } from '../lib/db.ts';
import { ApiError } from '../lib/errors.ts';
import { errorResponses } from '../lib/openapi-errors.ts';
import { createRouter } from '../lib/router.ts';
import { sql } from '../lib/sql-text.ts';
import {
  AccountId,
  AuthorSchema,
  CommentId,
  CommentSchema,
  Id,
  json,
  OwnEmail,
  PostId,
  PostSchema,
  ProfileSchema,
  ReasonText,
  Timestamp,
} from './schemas.ts';

/** The sections after the profile, in the archive's order. */
const sections = [
  'posts',
  'comments',
  'likes',
  'comment_likes',
  'following',
  'followers',
  'close_friends',
  'blocks',
  'mutes',
  'reports',
  'notifications',
] as const;
const batch = 500;

function exportsBusy(): ApiError {
  return new ApiError(503, 'exports_busy', 'Too many exports are running; try again in a moment', undefined, 30);
}

/**
 * A section's items, newest first, a page at a time, each page one statement (private.account_export_page):
 * keyset on (at, id). An item the caller may no longer see comes back null and is left out.
 */
async function* pagesOf(run: RunStatement, section: string) {
  let after = { at: 'infinity', id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' };
  for (;;) {
    const rows = await run(sql`
      select p.at::text as at, p.id, p.item
      from private.account_export_page(${section}, ${after.at}, ${after.id}, ${batch}) p`);
    const items = rows.filter((row) => row.item !== null).map((row) => row.item);
    if (items.length > 0) yield items;
    if (rows.length < batch) return;
    const last = rows[rows.length - 1];
    after = { at: last.at, id: last.id };
  }
}

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
  following: z.array(Related.extend({ status: z.enum(['accepted', 'pending']) })).openapi({
    description: 'Pending: a follow request you made',
  }),
  followers: z.array(Related.extend({ status: z.enum(['accepted', 'pending']) })).openapi({
    description: 'Pending: a request made to you',
  }),
  close_friends: z.array(Related),
  blocks: z.array(Related),
  mutes: z.array(
    Related.extend({ notifications_only: z.boolean().openapi({ example: false }), expires_at: Timestamp.nullable() }),
  ),
  reports: z.array(z.object({
    id: Id,
    target_type: z.enum(['user', 'post', 'comment']),
    target_user_id: AccountId.nullable(),
    target_post_id: PostId.nullable(),
    target_comment_id: CommentId.nullable(),
    reason: ReasonText,
    created_at: Timestamp,
  })),
  notifications: z.array(
    z.object({
      id: Id,
      kind: z.string().openapi({ example: 'comment' }),
      created_at: Timestamp,
      read_at: Timestamp.nullable(),
    }).passthrough(),
  ),
}).openapi('Archive');

export const accountExport = createRouter().openapi(
  createRoute({
    method: 'get',
    path: '/user/export',
    operationId: 'exportAccount',
    tags: ['account'],
    security: [{ bearerAuth: [] }],
    summary: 'Download everything your account owns, as one JSON archive',
    description:
      'Your profile (with your e-mail), posts, comments, likes, follows both ways and follow requests, close ' +
      'friends, ' +
      'blocks, mutes, the reports you filed and your notifications, newest first in each section, with media paths. ' +
      'Other ' +
      "accounts appear by their public card only, as far as you may see them now: never another account's e-mail, a " +
      'close-friends post of someone else, or who blocked you. Streamed: it starts at once and arrives as it is ' +
      'read, whole however large. One export at a time per account: another while one runs is a 429.',
    middleware: [requireUser] as const,
    responses: {
      200: {
        ...json(ArchiveSchema, 'The archive'),
        headers: {
          'Content-Disposition': {
            description: 'A file name for a browser that saves the archive',
            required: true,
            schema: { type: 'string', example: 'attachment; filename="daykeeper-archive.json"' },
          },
        },
      },
      ...errorResponses({
        401: 'Not signed in',
        429: 'Another export of your account is running (export_in_progress): one at a time',
      }),
    },
  }),
  async function exportAccount(c) {
    const encoder = new TextEncoder();
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const write = (text: string) => writer.write(encoder.encode(text));
    // The answer starts once the profile is read: a refusal before that (a 401, a 429) is an ordinary error answer.
    let started!: () => void;
    const profileRead = new Promise<void>((resolve) => (started = resolve));
    // A place among those exports share (a quarter of the pool), so slow readers never hold every connection.
    const leave = await c.var.deps.db.longReads.enter(c.var.deps.request.signal).catch((error) => {
      throw error instanceof ApiError ? exportsBusy() : error;
    });
    // One export at a time per account (private.start_export): a second is refused with 429 before any 200.
    const reading = readPageByPageAs(c.var.deps, c.var.caller, sql`select private.start_export()`, async (run) => {
      const [profile] = await run(
        sql`select p.item from private.account_export_page('profile', 'infinity', null, 1) p`,
      );
      started();
      await write(
        `{"format":"daykeeper-archive/1","exported_at":${JSON.stringify(new Date().toISOString())},"profile":${
          JSON.stringify(profile.item)
        }`,
      );
      for (const section of sections) {
        await write(`,${JSON.stringify(section)}:[`);
        let separator = '';
        for await (const page of pagesOf(run, section)) {
          await write(separator + page.map((item) => JSON.stringify(item)).join(','));
          separator = ',';
        }
        await write(']');
      }
      await write('}');
    });
    // Past the start, a failure can only cut the archive short: the client sees a body that does not parse.
    reading.finally(leave).then(() => writer.close(), (error) => writer.abort(error)).catch(() => undefined);
    await Promise.race([profileRead, reading]);
    return c.body(readable, 200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Disposition': 'attachment; filename="daykeeper-archive.json"',
      'Cache-Control': cacheControl.none,
    }) as never;
  },
);

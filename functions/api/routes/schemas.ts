// Schemas shared by several routes: the fields users type, and the shapes the API returns.
import { z } from '@hono/zod-openapi';

// Every field comes with a real-looking example, on the field itself: an example on an object would have to hold
// for every schema that extends it too. The fields users type add their rules to the same leaves.

/** A real-looking account, a post and a comment of theirs, for the examples. */
const ACCOUNT = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  username: 'cleo',
  display_name: 'Cleo Martin',
  avatar_url: '7c9e6679-7425-40de-944b-e07fc1f90ae7/avatar.jpg',
};
const POST = { id: '0b6e3f2a-5d1c-4e8f-9a7b-3c2d1e0f9a8b', body: 'Long walk by the harbour with @ben, then soup.' };
const COMMENT = { id: '3d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a', body: 'That soup place is the best.' };
const MEDIA_PATH = `${ACCOUNT.id}/harbour.jpg`;
/** The account's access token: a Supabase Auth JWT (its signature made up). */
const ACCESS_TOKEN = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.' +
  'eyJzdWIiOiI3YzllNjY3OS03NDI1LTQwZGUtOTQ0Yi1lMDdmYzFmOTBhZTciLCJyb2xlIjoiYXV0aGVudGljYXRlZCIsImFhbCI6ImFhbDEiLC' +
  'JleHAiOjE3OTU1OTcyMDB9.' +
  'Rjs7ZNGGSs5mPtV3ic-YQiypm1NpJHggHYbcWg61txE';

/**
 * `schema` or null, for a schema registered by name (`.openapi('Author')`): zod-to-openapi 9.1 renders
 * `.nullable()` of one as its bare `$ref`, or as `allOf: [$ref, {type: [object, null]}]`, and both forbid null;
 * a union with null is `anyOf: [$ref, {type: 'null'}]`, which the typed client and supabase-js types read as `| null`.
 * test/api/openapi.test.ts refuses the `allOf` form, and every answer the tests receive is checked against the document.
 */
export function orNull<T extends z.ZodType>(schema: T) {
  return z.union([schema, z.null()]);
}

export const Id = z.uuid().openapi({ example: '5b1d0a4e-8f55-4c3e-9a35-0f6f4b8f2a11' });
export const AccountId = Id.openapi({ example: ACCOUNT.id });
export const PostId = Id.openapi({ example: POST.id });
export const CommentId = Id.openapi({ example: COMMENT.id });
/** A username as the API answers it (as typed, see Username). */
export const UsernameText = z.string().openapi({ example: ACCOUNT.username });
const DisplayNameText = z.string().openapi({ example: ACCOUNT.display_name });
const BioText = z.string().openapi({ example: 'Baker in Lyon. Mostly bread, sometimes the river.' });
const TimeZoneText = z.string().openapi({ example: 'Europe/Paris' });
const AvatarPath = z.string().nullable().openapi({ example: ACCOUNT.avatar_url });
/** The caller's own e-mail address, which no one else sees. */
export const OwnEmail = z.string().openapi({ example: 'cleo@example.com' });
export const PostText = z.string().openapi({ example: POST.body });
export const CommentText = z.string().openapi({ example: COMMENT.body });
const MediaPath = z.string().openapi({ example: MEDIA_PATH });
/** Why an account, a post or a comment is reported or banned. */
export const ReasonText = z.string().openapi({ example: 'Spam: the same link under every post' });
/** Opaque, as the database writes one (this one names the example post). */
const CURSOR = 'MTc5NTU0MjEzMDUwMzAwMC8wYjZlM2YyYS01ZDFjLTRlOGYtOWE3Yi0zYzJkMWUwZjlhOGI';
const Cursor = z.string().openapi({ example: CURSOR });
export const RefreshToken = z.string().openapi({ example: 'qv2x7k4mhd3a' });

export const Username = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9._]{3,30}$/, 'a username is 3 to 30 of a-z, 0-9, dot and underscore')
  .openapi({ example: 'jane.doe' });

export const Email = z.email().max(254).openapi({ example: 'jane@example.com' });
/** A password as typed at login: whatever the account has (a new one is a Password). */
export const PasswordText = z.string().openapi({ example: 'correct horse battery' });
/** As Supabase Auth counts a password: in UTF-8 bytes, from minimum_password_length (config.toml) to bcrypt's 72. */
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;
export const Password = PasswordText
  .refine((text) => utf8Bytes(text) >= 8, 'at least 8 bytes (UTF-8)')
  .refine((text) => utf8Bytes(text) <= 72, 'at most 72 bytes (UTF-8)')
  .openapi({ minLength: 8, description: '8 to 72 bytes in UTF-8, as Supabase Auth counts them' });
/** A moment, as the database writes it (ISO 8601 with its offset). */
export const Timestamp = z.string().openapi({ format: 'date-time', example: '2026-11-25T08:00:00.000+00:00' });
/** A calendar day, YYYY-MM-DD. */
export const Day = z.string().openapi({ format: 'date', example: '2026-11-22' });
export const Code = z.string().regex(/^\d{6}$/, 'the 6-digit code from the e-mail').openapi({ example: '123456' });
/** The current code of an authenticator app. */
export const TotpCode = z.string().regex(/^\d{6}$/, 'the 6-digit code of the authenticator app').openapi({
  example: '492039',
});
/** A pending removal of an account's second factors (supabase/schemas/30_two_factor_recovery.sql). */
export const FactorRecoverySchema = z.object({
  requested_at: Timestamp,
  completes_at: Timestamp.openapi({ description: 'When the factors may be removed' }),
}).openapi('FactorRecovery');
/**
 * As the database accepts it: no control characters (Unicode Cc: U+0000–U+001F, U+007F–U+009F), no bidirectional
 * overrides (a name that reads as another). Written without flags: the OpenAPI document carries the bare pattern.
 */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const withoutControlCharacters = /^[^\u0000-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]*$/;
export const DisplayName = DisplayNameText.max(50).regex(withoutControlCharacters, {
  message: 'must not contain control or bidirectional override characters',
});
export const Bio = BioText.max(500);
export const TimeZone = TimeZoneText.min(1).max(64);
/** An object path in the storage bucket, as the database accepts it (private.is_storage_path). */
export const StoragePath = z.string().max(300).regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/).refine(
  (path) => !path.includes('..'),
  {
    message: 'must not contain ..',
  },
).openapi({ example: MEDIA_PATH });
export const AvatarUrl = StoragePath.openapi({
  description: 'Path of the avatar in the storage bucket',
  example: ACCOUNT.avatar_url,
});

export const ProfileSchema = z
  .object({
    id: AccountId,
    username: UsernameText,
    display_name: DisplayNameText,
    bio: BioText,
    avatar_url: AvatarPath,
    time_zone: TimeZoneText,
    is_private: z.boolean().openapi({ example: false }),
    followers_count: z.number().int().openapi({ example: 128 }),
    following_count: z.number().int().openapi({ example: 96 }),
    posts_count: z.number().int().openapi({ example: 342 }),
    banned: z.boolean().openapi({ example: false }),
    created_at: Timestamp,
    email: OwnEmail.optional().openapi({ description: "Only in the caller's own profile" }),
    unread_notifications: z.number().int().optional().openapi({
      description: "Only in the caller's own profile",
      example: 3,
    }),
    viewer: z
      .object({
        following: z.boolean().openapi({ example: true }),
        requested: z.boolean().openapi({ example: false }),
        follows_you: z.boolean().openapi({ example: true }),
        close_friend: z.boolean().openapi({ example: false }),
      })
      .nullable(),
  })
  .openapi('Profile');

export const MfaFactorSummary = z
  .object({
    id: Id,
    friendly_name: z.string().nullable().openapi({ example: 'My phone' }),
    factor_type: z.enum(['totp', 'phone', 'webauthn']),
  })
  .openapi('MfaFactorSummary');

export const SessionSchema = z
  .object({
    session: z.object({
      access_token: z.string().openapi({ example: ACCESS_TOKEN }),
      refresh_token: RefreshToken,
      token_type: z.string().openapi({ example: 'bearer' }),
      expires_in: z.number().int().openapi({ description: 'Seconds', example: 3600 }),
      expires_at: z.number().int().openapi({ description: 'Unix time, in seconds', example: 1795597200 }),
    }),
    user: z.object({ id: AccountId, email: OwnEmail.nullable() }),
    profile: orNull(ProfileSchema).openapi({
      description: 'Null until a session of an account with a second factor steps up (mfa.step_up_required)',
    }),
    mfa: z.object({
      aal: z.enum(['aal1', 'aal2']).openapi({ description: 'aal2: this session proved a second factor' }),
      step_up_required: z.boolean().openapi({
        example: true,
        description:
          'The account has a second factor this session has not proved: changing the password or e-mail, deleting ' +
          'the account, ending other sessions and admin acts answer 403 second_factor_required until a code is ' +
          'verified with POST /user/mfa/{factorId}/verify',
      }),
      factors: z.array(MfaFactorSummary),
      recovery: z.object({ requested_at: Timestamp, completes_at: Timestamp }).nullable()
        .openapi({
          description:
            'A pending removal of the factors, started with an e-mailed code: when they go, unless cancelled',
        }),
    }),
  })
  .openapi('Session');

export const AuthorSchema = z
  .object({ id: AccountId, username: UsernameText, display_name: DisplayNameText, avatar_url: AvatarPath })
  .openapi('Author');

const Mentions = z.array(AuthorSchema).openapi({
  description: 'The accounts the text mentions (@username) that you may see',
});

export const PostSchema = z
  .object({
    id: PostId,
    author: AuthorSchema,
    body: PostText,
    media: z.array(MediaPath),
    emotion: z.number().int().nullable().openapi({ example: 80 }),
    privacy: z.enum(['public', 'close_friends', 'private']),
    day: Day,
    likes_count: z.number().int().openapi({ example: 12 }),
    comments_count: z.number().int().openapi({ example: 3 }),
    banned: z.boolean().openapi({ example: false }),
    created_at: Timestamp,
    edited_at: Timestamp.nullable(),
    mentions: Mentions,
    viewer: z.object({
      liked: z.boolean().openapi({ example: true }),
      is_author: z.boolean().openapi({ example: false }),
    }).nullable(),
  })
  .openapi('Post', {
    example: {
      id: POST.id,
      author: ACCOUNT,
      body: POST.body,
      media: [MEDIA_PATH],
      emotion: 80,
      privacy: 'public',
      day: '2026-11-24',
      likes_count: 12,
      comments_count: 3,
      banned: false,
      created_at: '2026-11-24T17:42:10.503+00:00',
      edited_at: null,
      mentions: [{
        id: '9f1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d',
        username: 'ben',
        display_name: 'Ben Okafor',
        avatar_url: null,
      }],
      viewer: { liked: true, is_author: false },
    },
  });

export const CommentSchema = z
  .object({
    id: CommentId,
    post_id: PostId,
    parent_id: CommentId.nullable().openapi({ example: null }),
    author: AuthorSchema,
    body: CommentText,
    likes_count: z.number().int().openapi({ example: 2 }),
    replies_count: z.number().int().openapi({ example: 1 }),
    mentions: Mentions,
    created_at: Timestamp,
    viewer: z.object({
      liked: z.boolean().openapi({ example: false }),
      can_delete: z.boolean().openapi({ example: false }),
    }).nullable(),
  })
  .openapi('Comment', {
    example: {
      id: COMMENT.id,
      post_id: POST.id,
      parent_id: null,
      author: ACCOUNT,
      body: COMMENT.body,
      likes_count: 2,
      replies_count: 1,
      mentions: [],
      created_at: '2026-11-24T18:03:55.020+00:00',
      viewer: { liked: false, can_delete: false },
    },
  });

/** One page of a list: pass next_cursor back as `cursor` for the next page; null on the last. */
export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z.object({
    items: z.array(item),
    next_cursor: Cursor.nullable().openapi({
      description: 'Pass as ?cursor= for the next (older) page; null on the last',
    }),
    newer_cursor: Cursor.nullable().openapi({
      description:
        'Names the first (newest) item of a list in time order: pass it as ?newer_than= later for what has come ' +
        'since; null for an empty page or a search',
    }),
  }).openapi(name);
}

export const PostPage = pageOf(PostSchema, 'PostPage');

export const PageQuery = z.object({
  cursor: z.string().max(200).optional().openapi({
    description: 'The next_cursor of the page before',
    example: CURSOR,
  }),
  limit: z.coerce.number().int().min(1).max(100).optional().openapi({
    description: 'Default 20, at most 100',
    example: 20,
  }),
});

/** A list a client keeps on screen and refreshes: it may ask only for what is newer than what it shows. */
export const RefreshablePageQuery = PageQuery.extend({
  newer_than: z.string().max(200).optional().openapi({
    example: CURSOR,
    description:
      'A newer_cursor this list answered before: only the items newer than that one, newest first (page on with ' +
      '?cursor= as usual)',
  }),
});

export const UsernameParam = z.object({ username: Username.openapi({ param: { name: 'username', in: 'path' } }) });
export const PostIdParam = z.object({ postId: PostId.openapi({ param: { name: 'postId', in: 'path' } }) });
export const CommentIdParam = z.object({ commentId: CommentId.openapi({ param: { name: 'commentId', in: 'path' } }) });
export const Reason = z.object({ reason: ReasonText.trim().min(1).max(1000) });
export const IsoDate = z.iso.date().openapi({ example: '2026-11-22' });

export const ReportSchema = z
  .object({ id: Id, target_type: z.enum(['user', 'post', 'comment']), created_at: Timestamp })
  .openapi('Report');

export const DeletedSchema = z.object({ deleted: z.literal(true), id: Id }).openapi('Deleted');

export const MessageSchema = z.object({
  message: z.string().openapi({ example: 'If an account exists for this address, we sent it a code' }),
})
  .openapi('Message');

export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export function body<T extends z.ZodType>(schema: T) {
  return { body: { required: true, content: { 'application/json': { schema } } } };
}

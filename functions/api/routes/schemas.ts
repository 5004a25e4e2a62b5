// Schemas shared by several routes: the fields users type, and the shapes the API returns.
import { z } from '@hono/zod-openapi';

export const Username = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9._]{3,30}$/, 'a username is 3 to 30 of a-z, 0-9, dot and underscore')
  .openapi({ example: 'jane.doe' });

export const Email = z.email().max(254).openapi({ example: 'jane@example.com' });
export const Password = z.string().min(8, 'at least 8 characters').max(72, 'at most 72 characters');
export const Code = z.string().regex(/^\d{6}$/, 'the 6-digit code from the e-mail').openapi({ example: '123456' });
export const DisplayName = z.string().max(50);
export const Bio = z.string().max(500);
export const TimeZone = z.string().min(1).max(64).openapi({ example: 'Europe/Paris' });
export const AvatarUrl = z.string().min(1).max(500);

export const ProfileSchema = z
  .object({
    id: z.uuid(),
    username: z.string(),
    display_name: z.string(),
    bio: z.string(),
    avatar_url: z.string().nullable(),
    time_zone: z.string(),
    is_private: z.boolean(),
    followers_count: z.number().int(),
    following_count: z.number().int(),
    posts_count: z.number().int(),
    banned: z.boolean(),
    created_at: z.string(),
    email: z.string().optional().openapi({ description: 'Only in the caller\'s own profile' }),
    viewer: z
      .object({ following: z.boolean(), requested: z.boolean(), follows_you: z.boolean(), close_friend: z.boolean() })
      .nullable(),
  })
  .openapi('Profile');

export const SessionSchema = z
  .object({
    session: z.object({
      access_token: z.string(),
      refresh_token: z.string(),
      token_type: z.string(),
      expires_in: z.number().int(),
      expires_at: z.number().int(),
    }),
    user: z.object({ id: z.uuid(), email: z.string().nullable() }),
    profile: ProfileSchema,
  })
  .openapi('Session');

export const MessageSchema = z.object({ message: z.string() }).openapi('Message');

export function json<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

export function body<T extends z.ZodType>(schema: T) {
  return { body: { required: true, content: { 'application/json': { schema } } } };
}

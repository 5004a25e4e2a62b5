// Idempotency-Key on the operations that create (supabase/schemas/25_idempotent_creates.sql): the header as
// the OpenAPI document declares it, and what identifies the request it came with.
import { z } from '@hono/zod-openapi';

export const IdempotencyHeaders = z.object({
  'idempotency-key': z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/, 'Visible ASCII characters, no spaces')
    .optional().openapi({
      description: 'Any unique string (a UUID, say) chosen by the client for this create. Sent again with a retry ' +
        'within a day, it returns the first answer and creates nothing; sent with another request it is a 409 ' +
        '`idempotency_key_reused`.',
      example: '6f1c3c1e-7f0e-4a55-9a53-0c1b8f2b9d11',
    }),
});

export interface Idempotency {
  key: string;
  /** The request the key came with: method, path and validated body, hashed. */
  fingerprint: string;
}

export async function idempotencyOf(
  key: string | undefined,
  method: string,
  path: string,
  body: unknown,
): Promise<Idempotency | undefined> {
  if (key === undefined) return undefined;
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(`${method} ${path}\n${JSON.stringify(body)}`),
  );
  return {
    key,
    fingerprint: Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join(''),
  };
}

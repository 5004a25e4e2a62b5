// The facade's configuration, validated once. Hosted Supabase injects the SUPABASE_* variables into every
// Edge Function; the local stack sets the same names (supabase/stack/stack.ts).
import { z } from 'zod';

const jsonWebKeySet = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as { keys: Record<string, unknown>[] };
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON Web Key Set' });
      return z.NEVER;
    }
  });

const envSchema = z.object({
  SUPABASE_URL: z.url(),
  SUPABASE_DB_URL: z.string().min(1),
  SUPABASE_ANON_KEY: z.string().min(1),
  SUPABASE_SERVICE_ROLE_KEY: z.string().min(1),
  /** Auth's public signing keys; when absent they are fetched from Auth's /.well-known/jwks.json. */
  SUPABASE_JWKS: jsonWebKeySet.optional(),
  /** Only for projects still signing user tokens with the legacy HS256 secret. */
  SUPABASE_JWT_SECRET: z.string().min(32).optional(),
  /**
   * The secret API key (`sb_secret_…`) with which the facade may name its client to Auth in Sb-Forwarded-For.
   * Hosted projects reserve the SUPABASE_ prefix for their own secrets, hence the name. Without it the
   * service role key is sent, which the local gateway accepts and hosted projects do not.
   */
  AUTH_FORWARDING_KEY: z.string().min(1).optional(),
  /**
   * host:port of the SMTP server code e-mails go out through (the Send Email hook sends them): requests for a code
   * e-mail are answered 503 mail_unavailable when it does not answer, and /health reports it. Port 465 speaks TLS
   * from the start; any other port is upgraded with STARTTLS when the server offers it. Unchecked when absent.
   */
  SMTP_SERVER: z.string().regex(/^[^\s:]+:\d+$/, 'must be host:port').optional(),
  /** The SMTP server's login, when it asks for one (a hosted project's mail provider). */
  SMTP_USER: z.string().min(1).optional(),
  SMTP_PASS: z.string().min(1).optional(),
  /** The From of code e-mails, `Name <address>`. */
  SMTP_FROM: z.string().min(3).default('DayKeeper <no-reply@daykeeper.local>'),
  /**
   * The secret Supabase Auth signs its Send Email hook's requests with (`v1,whsec_…`, the hook's `secrets`):
   * without it the hook refuses every request, and Auth sends no e-mail.
   */
  SEND_EMAIL_HOOK_SECRET: z.string().regex(/^v1,whsec_[A-Za-z0-9+/=]+$/, 'must be v1,whsec_<base64>').optional(),
  /**
   * The transaction pooler's URL (hosted: the Connect dialog's "Transaction pooler", port 6543): the facade then
   * connects through it rather than to SUPABASE_DB_URL, which hosted projects set to the direct connection.
   * A secret of the project's own, since the SUPABASE_ prefix is reserved for the injected ones.
   */
  DB_POOLER_URL: z.string().min(1).optional(),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(20).default(8),
  /**
   * Read replicas of SUPABASE_DB_URL's database, comma-separated connection URLs: requests that only read go to
   * them when they have replayed what the caller must see (functions/api/lib/query.ts). None: all go to the primary.
   */
  DB_REPLICA_URLS: z
    .string()
    .default('')
    .transform((list) => list.split(',').map((url) => url.trim()).filter(Boolean)),
  /** A replica further behind the primary than this many milliseconds is not used. */
  DB_REPLICA_MAX_LAG_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  /** Comma-separated URLs a Google sign-in may return to (the `redirect_to` allow-list). */
  AUTH_REDIRECT_URLS: z
    .string()
    .default('')
    .transform((list) => list.split(',').map((url) => url.trim()).filter(Boolean)),
});

export type Env = z.infer<typeof envSchema>;

/** Parses the environment, failing with the list of what is missing or wrong. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid environment for the api function:\n${problems.join('\n')}`);
  }
  return result.data;
}

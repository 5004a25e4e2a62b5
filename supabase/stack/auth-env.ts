// supabase/config.toml → Supabase Auth's GOTRUE_* environment, the way the Supabase CLI maps it
// (the mapping its `supabase start` applies), for the Docker-free local stack.
import type { Toml } from './config.ts';
import type { StackKeys } from './keys.ts';

export interface AuthEnvInput {
  config: Toml;
  keys: StackKeys;
  port: number;
  /** Where clients reach Auth: the gateway's /auth/v1. */
  externalUrl: string;
  databaseUrl: string;
  smtpPort: number;
}

function flag(value: unknown): string {
  return value ? 'true' : 'false';
}

function google(auth: Toml, externalUrl: string): Record<string, string> {
  const google = auth.external?.google;
  if (!google) return {};
  return {
    GOTRUE_EXTERNAL_GOOGLE_ENABLED: flag(google.enabled),
    GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID: google.client_id ?? '',
    GOTRUE_EXTERNAL_GOOGLE_SECRET: google.secret ?? '',
    GOTRUE_EXTERNAL_GOOGLE_REDIRECT_URI: google.redirect_uri || `${externalUrl}/callback`,
    GOTRUE_EXTERNAL_GOOGLE_SKIP_NONCE_CHECK: flag(google.skip_nonce_check),
  };
}

/** Auth's notices of account changes (`[auth.email.notification.<kind>] enabled`), as the CLI maps them. */
function notifications(email: Toml): Record<string, string> {
  const settings = (email.notification ?? {}) as Record<string, Toml>;
  return Object.fromEntries(
    Object.entries(settings).map((
      [kind, setting],
    ) => [`GOTRUE_MAILER_NOTIFICATIONS_${kind.toUpperCase()}_ENABLED`, flag(setting.enabled)]),
  );
}

/** Multi-factor authentication (`[auth.mfa]`, `[auth.mfa.totp]`), as the CLI maps it. */
function mfa(auth: Toml): Record<string, string> {
  const mfa = auth.mfa ?? {};
  const totp = mfa.totp ?? {};
  return {
    GOTRUE_MFA_MAX_ENROLLED_FACTORS: String(mfa.max_enrolled_factors ?? 10),
    GOTRUE_MFA_TOTP_ENROLL_ENABLED: flag(totp.enroll_enabled ?? true),
    GOTRUE_MFA_TOTP_VERIFY_ENABLED: flag(totp.verify_enabled ?? true),
  };
}

/** Auth's hooks (`[auth.hook.<name>]`), as GOTRUE_HOOK_<NAME>_ENABLED / _URI / _SECRETS. */
function hooks(auth: Toml): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, hook] of Object.entries(auth.hook ?? {}) as [string, Toml][]) {
    const prefix = `GOTRUE_HOOK_${name.toUpperCase()}`;
    env[`${prefix}_ENABLED`] = flag(hook.enabled);
    if (hook.uri) env[`${prefix}_URI`] = hook.uri;
    if (hook.secrets) env[`${prefix}_SECRETS`] = hook.secrets;
  }
  return env;
}

export function authEnv(input: AuthEnvInput): Record<string, string> {
  const { config, keys } = input;
  const auth = config.auth;
  const email = auth.email ?? {};
  const limits = auth.rate_limit ?? {};
  const smtp = config.local_smtp ?? {};
  const validMethods = 'HS256,RS256,ES256';
  return {
    GOTRUE_API_HOST: '127.0.0.1',
    GOTRUE_API_PORT: String(input.port),
    API_EXTERNAL_URL: input.externalUrl,
    GOTRUE_SITE_URL: auth.site_url,
    GOTRUE_URI_ALLOW_LIST: (auth.additional_redirect_urls ?? []).join(','),
    GOTRUE_DISABLE_SIGNUP: flag(!auth.enable_signup),
    GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED: flag(auth.enable_anonymous_sign_ins),

    GOTRUE_DB_DRIVER: 'postgres',
    GOTRUE_DB_DATABASE_URL: input.databaseUrl,
    // Auth keeps no idle database connection unless told (its log at start: limit_max_idle_conns 0), so each
    // request opened Postgres connections of its own, a backend's start and a password handshake each: most of
    // a token grant's time on a busy machine (docs/PERFORMANCE.md, "Supabase Auth's database connections").
    // Up to 10 stay open, the size of a hosted project's default Auth pool, each for 1 s unused: Auth uses a
    // kept connection without checking it, so after a Postgres restart each one it still held failed a request.
    GOTRUE_DB_MAX_IDLE_POOL_SIZE: '10',
    GOTRUE_DB_CONN_MAX_IDLE_TIME: '1s',

    GOTRUE_JWT_ADMIN_ROLES: 'service_role',
    GOTRUE_JWT_AUD: 'authenticated',
    GOTRUE_JWT_DEFAULT_GROUP_NAME: 'authenticated',
    GOTRUE_JWT_EXP: String(auth.jwt_expiry ?? 3600),
    GOTRUE_JWT_ISSUER: auth.jwt_issuer || input.externalUrl,
    GOTRUE_JWT_SECRET: keys.jwtSecret,
    GOTRUE_JWT_KEYS: JSON.stringify([keys.signingKey]),
    GOTRUE_JWT_VALID_METHODS: validMethods,
    GOTRUE_JWT_VALIDMETHODS: validMethods,

    GOTRUE_PASSWORD_MIN_LENGTH: String(auth.minimum_password_length ?? 6),
    GOTRUE_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED: flag(auth.enable_refresh_token_rotation),
    GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: String(auth.refresh_token_reuse_interval ?? 10),
    GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: flag(email.secure_password_change),
    GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD: flag(email.require_current_password),

    GOTRUE_EXTERNAL_EMAIL_ENABLED: flag(email.enabled ?? true),
    GOTRUE_MAILER_AUTOCONFIRM: flag(!email.enable_confirmations),
    GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED: flag(email.double_confirm_changes),
    GOTRUE_MAILER_OTP_LENGTH: String(email.otp_length ?? 6),
    GOTRUE_MAILER_OTP_EXP: String(email.otp_expiry ?? 3600),
    // Where the links Auth makes lead (admin generate_link's action_link; its own mails, were the hook off): Auth's
    // /verify behind the gateway, as the CLI's `supabase start` sets them. Auth's default, the bare path /verify,
    // would resolve against the gateway's root and be a 404.
    GOTRUE_MAILER_URLPATHS_INVITE: `${input.externalUrl}/verify`,
    GOTRUE_MAILER_URLPATHS_CONFIRMATION: `${input.externalUrl}/verify`,
    GOTRUE_MAILER_URLPATHS_RECOVERY: `${input.externalUrl}/verify`,
    GOTRUE_MAILER_URLPATHS_EMAIL_CHANGE: `${input.externalUrl}/verify`,
    ...notifications(email),
    GOTRUE_SMTP_MAX_FREQUENCY: email.max_frequency ?? '1s',
    GOTRUE_SMTP_HOST: '127.0.0.1',
    GOTRUE_SMTP_PORT: String(input.smtpPort),
    GOTRUE_SMTP_ADMIN_EMAIL: smtp.admin_email ?? 'admin@example.com',
    GOTRUE_SMTP_SENDER_NAME: smtp.sender_name ?? 'Admin',

    GOTRUE_RATE_LIMIT_EMAIL_SENT: String(limits.email_sent ?? 30),
    GOTRUE_RATE_LIMIT_OTP: String(limits.sign_in_sign_ups ?? 30),
    GOTRUE_RATE_LIMIT_TOKEN_REFRESH: String(limits.token_refresh ?? 150),
    GOTRUE_RATE_LIMIT_VERIFY: String(limits.token_verifications ?? 30),
    GOTRUE_RATE_LIMIT_ANONYMOUS_USERS: String(limits.anonymous_users ?? 30),
    // Per-client limits, as on hosted projects: keyed on the address a secret-key holder (the facade) names
    // in Sb-Forwarded-For, else on the address the gateway saw (X-Forwarded-For, set by the gateway alone).
    GOTRUE_RATE_LIMIT_HEADER: 'X-Forwarded-For',
    GOTRUE_SECURITY_SB_FORWARDED_FOR_ENABLED: 'true',
    ...google(auth, input.externalUrl),
    ...mfa(auth),
    ...hooks(auth),

    GOTRUE_LOG_LEVEL: 'info',
  };
}

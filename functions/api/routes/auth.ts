// The /auth paths: registration, confirmation, login (also with Google), refresh, password recovery,
// the signed-in user, the delete code and logout. Supabase Auth does the work; see docs/ACCOUNTS-SECURITY.md.
import { createRoute, z } from '@hono/zod-openapi';
import { cacheControl } from '../lib/caching.ts';
import { requireUser } from '../lib/caller.ts';
import { queryAs } from '../lib/query.ts';
import { rpcStatement } from '../lib/rpc-statement.ts';
import { sql } from '../lib/sql-text.ts';
import { fromAuth, fromAuthAddress, translations } from '../lib/auth-errors.ts';
import { isMailRefused, mailOneTimeCode, verifyCode } from '../lib/codes.ts';
import { ApiError } from '../lib/errors.ts';
import { errorResponse } from '../lib/openapi-errors.ts';
import { atLeast, exactly, sleepUntil } from '../lib/fixed-time.ts';
import type { Deps, RequestDeps } from '../lib/context.ts';
import { createRouter } from '../lib/router.ts';
import { assertMailUp } from '../lib/smtp.ts';
import { proveSecondFactor } from '../lib/reset-second-factor.ts';
import { ownProfile, sessionReply } from '../lib/session.ts';
import { anonymous, server } from '../lib/tokens.ts';
import {
  AccountId,
  body,
  Code,
  DisplayName,
  Email,
  FactorRecoverySchema,
  Id,
  json,
  MessageSchema,
  OwnEmail,
  Password,
  PasswordText,
  ProfileSchema,
  RefreshToken,
  SessionSchema,
  TimeZone,
  TotpCode,
  Username,
} from './schemas.ts';

const tags = ['auth'];
const sentAnyway = 'If an account exists for this address, we sent it a code';

// How long the answers that could tell whether an account exists take, whatever happened: above the time
// Supabase Auth takes to check a password hash (login) or to send an e-mail (the others).
const failedLoginMs = 400;
const registerMs = 1500;
const codeRequestMs = 500;

/**
 * A sign-up, password-reset or sign-in code to `email`; Auth's refusals (the Send Email hook's once a minute per account,
 * the budgets) are not told. It runs on after the answer (see exactly()).
 */
async function mailCode(
  deps: Deps,
  email: string,
  kind: 'signup' | 'recovery' | 'magiclink',
  clientIp?: string,
): Promise<void> {
  const send = kind === 'signup'
    ? deps.auth.resendSignup(email, clientIp)
    : kind === 'recovery'
    ? deps.auth.recover(email, clientIp)
    : deps.auth.signInCode(email, clientIp);
  await send.catch(() => undefined);
}

// Above the routes on purpose: `npm run error-codes` credits the SQL named here (as in the helpers below) to every
// /auth operation, so the authenticator check's codes (private.mfa_verification_attempt) stay in each one's
// documented codes, as when the routes were declared apart from the router; narrowing them is a change of the API.
const resetPasswordDescription =
  'Sets a new password with the code from POST /auth/forget_password and signs out every other session of the ' +
  'account. An account with a second factor also sends `totp_code`, the current code of its authenticator app (and ' +
  '`factor_id` when it has several); one that lost the authenticator sends `lost_authenticator: true` instead, which ' +
  'starts the 72-hour removal of its factors (202, the password unchanged): once it is over, the same reset sets the ' +
  "password. The e-mailed code is used up by each attempt. The authenticator's code is checked as on every door " +
  '(private.mfa_verification_attempt()).';

/** 400 or 409 with the precise reason a sign-up would fail on the username or the time zone. */
async function checkRegistration(deps: RequestDeps, username: string, email: string, timeZone: string): Promise<void> {
  await queryAs(
    deps,
    anonymous,
    rpcStatement('check_registration', { p_username: username, p_email: email, p_time_zone: timeZone }),
  );
}

/** Whether `email` belongs to an account that awaits confirmation. */
async function awaitsConfirmation(deps: RequestDeps, email: string): Promise<boolean> {
  const [{ pending }] = await queryAs(deps, server, sql`select private.awaits_confirmation(${email}) as pending`);
  return Boolean(pending);
}

/** The e-mail to sign `username` in with. */
async function emailForLogin(deps: RequestDeps, username: string): Promise<string> {
  const [row] = await queryAs(deps, server, sql`select private.email_for_login(${username}) as email`);
  // An unknown username is asked of Auth all the same, so that it answers exactly as for a wrong password.
  return row.email ?? 'unknown-user@example.invalid';
}

export const auth = createRouter()
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/register',
      operationId: 'register',
      description:
        'Creates an account and e-mails a 6-digit code to confirm it (POST /auth/confirm_email); it cannot sign in ' +
        'before. The username follows the rules of the schema and may not be a reserved word. An address whose ' +
        'account awaits confirmation is answered 409 and its owner is e-mailed a reset code.',
      security: [],
      tags,
      summary: 'Create an account; Supabase Auth e-mails a 6-digit code to confirm it',
      request: body(z.object({
        username: Username,
        email: Email,
        password: Password,
        display_name: DisplayName.optional(),
        time_zone: TimeZone.optional(),
      })),
      responses: {
        201: json(
          z.object({ confirmation_required: z.literal(true), email: OwnEmail }).openapi('Registered'),
          'Registered; confirm with the e-mailed code',
        ),
        400: errorResponse('Invalid field, reserved username or weak password'),
        403: errorResponse('The e-mail belongs to a banned account'),
        409: errorResponse('Username taken, or the e-mail already awaits confirmation'),
        429: errorResponse('Too many attempts'),
      },
    }),
    async function register(c) {
      const input = c.req.valid('json');
      const { deps } = c.var;
      // Precise errors about the username first (the sign-up trigger enforces the same rules again).
      const timeZone = input.time_zone ?? 'UTC';
      await checkRegistration(deps, input.username, input.email, timeZone);
      // Checked before Auth is asked: Auth answers a confirmed address at once and fails a new one on the mail.
      await assertMailUp(deps.env);
      // Auth signs up a new address after sending its e-mail, and answers a confirmed one at once.
      await atLeast(registerMs, async () => {
        if (await awaitsConfirmation(deps, input.email)) {
          // Auth would keep the first registrant's password (see private.awaits_confirmation). Instead the owner
          // gets a password-reset code: rate-limited like a sign-up, so the 409 is no unthrottled oracle either.
          await deps.auth.recover(input.email, c.var.clientIp).catch((error) => {
            if (!isMailRefused(error)) throw fromAuth(error);
          });
          // Its first line stays over 120: npm run error-codes documents that first literal alone as the message.
          throw new ApiError(
            409,
            'email_pending_confirmation',
            'This e-mail address already has an account awaiting confirmation. If it is yours, we e-mailed you a code: ' +
              'choose your password with POST /auth/reset_password, which confirms the address too.',
          );
        }
        const metadata = { username: input.username, display_name: input.display_name ?? '', time_zone: timeZone };
        await deps.auth.signUp(input.email, input.password, metadata, c.var.clientIp).catch(async (error) => {
          throw await fromAuthAddress(deps, error, input.email);
        });
      });
      return c.json({ confirmation_required: true as const, email: input.email }, 201);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/confirm_email',
      operationId: 'confirmEmail',
      security: [],
      tags,
      summary: 'Confirm an e-mail address with the 6-digit code; answers with a session',
      description: 'type signup (the default) confirms a new account; type email_change confirms a new address ' +
        'asked for with PUT /user (a code goes to each of the old and new addresses).',
      request: body(z.object({ email: Email, code: Code, type: z.enum(['signup', 'email_change']).default('signup') })),
      responses: {
        200: json(SessionSchema, 'Confirmed and signed in'),
        202: json(MessageSchema, 'One address of an e-mail change confirmed; the other is still to confirm'),
        400: errorResponse('Wrong or expired code'),
      },
    }),
    async function confirmEmail(c) {
      const { email, code, type } = c.req.valid('json');
      const session = await verifyCode(c.var.deps, type, email, code, c.var.clientIp, c.req.header('user-agent'));
      // An e-mail change confirmed on one address only: Auth answers without a session.
      if (!session.access_token) {
        return c.json({ message: 'This address is confirmed; now confirm the code sent to the other one' }, 202);
      }
      return c.json(await sessionReply(c.var.deps, session), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/login',
      operationId: 'login',
      description:
        'Signs in with a username or an e-mail and the password, and answers the session (access and refresh ' +
        'tokens), the user and the profile. An unknown account, a wrong password and a banned account get one ' +
        'identical 401, in the same time; an unconfirmed account is told to confirm its e-mail.',
      security: [],
      tags,
      summary: 'Sign in with a username or e-mail and the password',
      request: body(z.object({
        login: z.string().trim().min(1).max(254).openapi({ description: 'Username or e-mail', example: 'jane.doe' }),
        password: PasswordText.min(1).max(72),
      })),
      responses: {
        200: json(SessionSchema, 'Signed in'),
        401: errorResponse('Wrong username, e-mail or password, or a banned account (one answer for all)'),
        403: errorResponse('E-mail not confirmed (after a correct password)'),
      },
    }),
    async function login(c) {
      const started = Date.now();
      const { login: name, password } = c.req.valid('json');
      const { deps } = c.var;
      const email = name.includes('@') ? name : await emailForLogin(deps, name);
      const session = await deps.auth.signIn(email, password, c.var.clientIp, c.req.header('user-agent')).catch(
        async (error) => {
          // Auth answers an unknown account at once but checks a known one's password hash first: every refusal
          // takes the same time, so the delay does not tell which accounts exist.
          await sleepUntil(started + failedLoginMs);
          // Auth refuses a banned account before it checks the password, so a distinct answer would tell anyone
          // that an account exists and is banned: it gets the wrong-password answer.
          throw fromAuth(error, { user_banned: translations.invalid_credentials });
        },
      );
      return c.json(await sessionReply(deps, session), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/auth/google',
      operationId: 'signInWithGoogle',
      security: [],
      tags,
      summary: 'Start signing in (or up) with Google: a redirect to Supabase Auth',
      description: 'After Google, Supabase Auth redirects to `redirect_to` with the session in the URL fragment ' +
        '(`#access_token=…&refresh_token=…`). `redirect_to` must be one of the configured URLs.',
      request: {
        query: z.object({ redirect_to: z.url().openapi({ example: 'http://127.0.0.1:3000/auth/callback' }) }),
      },
      responses: {
        302: { description: 'To Supabase Auth, which sends the browser on to Google' },
        400: errorResponse('redirect_to is missing or not allowed'),
      },
    }),
    function signInWithGoogle(c) {
      const { redirect_to: redirectTo } = c.req.valid('query');
      const target = new URL(redirectTo);
      const allowed = c.var.deps.env.AUTH_REDIRECT_URLS.some((url) => {
        const candidate = new URL(url);
        return candidate.origin === target.origin && candidate.pathname === target.pathname;
      });
      if (!allowed) throw new ApiError(400, 'redirect_not_allowed', 'redirect_to is not one of the configured URLs');
      return c.redirect(c.var.deps.auth.authorizeUrl('google', redirectTo), 302);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/refresh',
      operationId: 'refreshSession',
      description:
        'Trades a refresh token for a new session; the refresh token rotates: keep the new one. A signed-out, banned ' +
        "or deleted account's refresh token is refused.",
      security: [],
      tags,
      summary: 'Trade a refresh token for a new session (the refresh token rotates)',
      request: body(z.object({ refresh_token: RefreshToken.min(1).max(512) })),
      responses: {
        200: json(SessionSchema, 'A new session'),
        401: errorResponse('Invalid, used or expired refresh token (a ban ends every session, so its tokens too)'),
      },
    }),
    async function refreshSession(c) {
      const { refresh_token: token } = c.req.valid('json');
      const session = await c.var.deps.auth.refresh(token, c.var.clientIp, c.req.header('user-agent')).catch(
        (error) => {
          const invalid: [401, string, string] = [
            401,
            'invalid_refresh_token',
            'The refresh token is invalid, used or expired',
          ];
          throw fromAuth(error, { session_not_found: invalid, validation_failed: invalid });
        },
      );
      return c.json(await sessionReply(c.var.deps, session), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/forget_password',
      operationId: 'forgetPassword',
      description:
        'E-mails a 6-digit code for POST /auth/reset_password. Answers the same whether or not the address has an ' +
        'account.',
      security: [],
      tags,
      summary: 'E-mail a password reset code; the same answer whether or not the account exists',
      request: body(z.object({ email: Email })),
      responses: { 200: json(MessageSchema, 'Done (or nothing to do)'), 400: errorResponse('Invalid e-mail') },
    }),
    async function forgetPassword(c) {
      const { email } = c.req.valid('json');
      // A mail server that is down is told, whatever the account; then whatever happens (unknown address, too
      // soon), the client learns nothing about the account.
      await assertMailUp(c.var.deps.env);
      await exactly(codeRequestMs, () => mailCode(c.var.deps, email, 'recovery', c.var.clientIp));
      return c.json({ message: sentAnyway }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/login_code',
      operationId: 'requestLoginCode',
      description:
        'E-mails a 6-digit sign-in code (with a link that does the same) for POST /auth/login_with_code: a way in ' +
        'without the password, for an account that has one or not (signed up with Google). Answers the same, in the ' +
        'same time, whether or not the address has an account; one code e-mail of a kind a minute per account, as every ' +
        'code e-mail. A new code replaces the last sign-in code, and the code POST /auth/requestdeletecode e-mailed.',
      security: [],
      tags,
      summary: 'E-mail a sign-in code; the same answer whether or not the account exists',
      request: body(z.object({ email: Email })),
      responses: { 200: json(MessageSchema, 'Done (or nothing to do)'), 400: errorResponse('Invalid e-mail') },
    }),
    async function requestLoginCode(c) {
      const { email } = c.req.valid('json');
      // As forgetPassword: a mail server that is down is told; past that, nothing about the account.
      await assertMailUp(c.var.deps.env);
      await exactly(codeRequestMs, () => mailCode(c.var.deps, email, 'magiclink', c.var.clientIp));
      return c.json({ message: sentAnyway }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/login_with_code',
      operationId: 'loginWithCode',
      description:
        'Signs in with the code from POST /auth/login_code, and answers the session as POST /auth/login does (an ' +
        'account with a second factor then steps up with POST /user/mfa/{factorId}/verify). A wrong, expired or used ' +
        'code, an unknown address and a banned account get one identical 400, in the same time; the attempts per ' +
        'address and per client are counted as for every e-mailed code.',
      security: [],
      tags,
      summary: 'Sign in with the e-mailed code',
      request: body(z.object({ email: Email, code: Code })),
      responses: {
        200: json(SessionSchema, 'Signed in'),
        400: errorResponse('Wrong, expired or used code (one answer for every reason)'),
      },
    }),
    async function loginWithCode(c) {
      const { email, code } = c.req.valid('json');
      const session = await verifyCode(
        c.var.deps,
        'magiclink',
        email,
        code,
        c.var.clientIp,
        c.req.header('user-agent'),
      );
      return c.json(await sessionReply(c.var.deps, session), 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/reset_password',
      operationId: 'resetPassword',
      description: resetPasswordDescription,
      security: [],
      tags,
      summary:
        "Set a new password with the e-mailed code (and the authenticator's, if the account has one); signs out " +
        'every other session',
      request: body(z.object({
        email: Email,
        code: Code,
        password: Password,
        totp_code: TotpCode.optional(),
        factor_id: Id.optional().openapi({ description: 'The factor totp_code is from, when the account has several' }),
        lost_authenticator: z.boolean().optional().openapi({
          description: 'Start removing the factors (72 hours) instead',
          example: false,
        }),
      })),
      responses: {
        200: json(SessionSchema, 'Password changed; a new session'),
        202: json(
          FactorRecoverySchema,
          'The authenticator is lost: its removal started (or goes on); the password is unchanged',
        ),
        400: errorResponse('Wrong or expired code, or weak password'),
        403: errorResponse('The account has a second factor: send totp_code, or lost_authenticator'),
      },
    }),
    async function resetPassword(c) {
      const { email, code, password, ...secondFactor } = c.req.valid('json');
      const { deps, clientIp } = c.var;
      const recovery = await verifyCode(deps, 'recovery', email, code, clientIp);
      try {
        const proved = await proveSecondFactor(deps, recovery, secondFactor, clientIp, c.req.header('user-agent'));
        if ('recovery' in proved) return c.json(proved.recovery, 202);
        // The recovery session may set a password without the current one (and Auth ends every other session).
        await deps.auth.updateUser(proved.accessToken, { password }, clientIp).catch((error) => {
          throw fromAuth(error);
        });
        // The client gets a password session instead, held to the current password like any other: a stolen
        // copy of it cannot change the password again.
        const session = await deps.auth.signIn(email, password, clientIp, c.req.header('user-agent')).catch((error) => {
          throw fromAuth(error);
        });
        return c.json(await sessionReply(deps, session), 200);
      } finally {
        // Whatever happened, the recovery session ends here.
        await deps.auth.logout(recovery.access_token, 'local').catch(() => undefined);
      }
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/resend_code',
      operationId: 'resendCode',
      description:
        'E-mails a new confirmation code to an account that awaits confirmation. Answers the same whether or not the ' +
        'address has one.',
      security: [],
      tags,
      summary:
        'Send the confirmation (or password reset) code again; the same answer whether or not the account exists',
      request: body(z.object({ email: Email, type: z.enum(['signup', 'recovery']).default('signup') })),
      responses: { 200: json(MessageSchema, 'Done (or nothing to do)'), 400: errorResponse('Invalid e-mail') },
    }),
    async function resendCode(c) {
      const { email, type } = c.req.valid('json');
      await assertMailUp(c.var.deps.env);
      await exactly(codeRequestMs, () => mailCode(c.var.deps, email, type, c.var.clientIp));
      return c.json({ message: sentAnyway }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'get',
      path: '/auth/user',
      operationId: 'getCurrentUser',
      description: "The signed-in user's account and profile, with their own e-mail address (shown to its owner only).",
      tags,
      summary: 'The signed-in user: account and profile, with their own e-mail',
      middleware: [requireUser] as const,
      security: [{ bearerAuth: [] }],
      responses: {
        200: json(
          z.object({ user: z.object({ id: AccountId, email: OwnEmail.nullable() }), profile: ProfileSchema }).openapi(
            'CurrentUser',
          ),
          'The caller',
        ),
        401: errorResponse('Missing, invalid or expired access token, or the session has ended'),
        403: errorResponse(
          'The account has a second factor this session has not proved: verify a code first (second_factor_required)',
        ),
      },
    }),
    async function getCurrentUser(c) {
      const profile = await ownProfile(c.var.deps, c.var.caller);
      c.header('Cache-Control', cacheControl.none);
      return c.json({ user: { id: profile.id, email: profile.email ?? null }, profile }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/requestdeletecode',
      operationId: 'requestDeleteCode',
      description: 'E-mails you the code that DELETE /user needs. One a minute: a second request within it is a 429.',
      tags,
      summary: 'E-mail the signed-in user a code that confirms deleting their account (DELETE /user)',
      middleware: [requireUser] as const,
      security: [{ bearerAuth: [] }],
      responses: {
        200: json(MessageSchema, 'Code sent'),
        401: errorResponse('Not signed in'),
        429: errorResponse('Too many codes'),
      },
    }),
    async function requestDeleteCode(c) {
      await mailOneTimeCode(c.var.deps, c.var.caller, c.var.clientIp);
      return c.json({ message: 'We e-mailed you a code: send it with DELETE /user to delete your account' }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'post',
      path: '/auth/logout',
      operationId: 'logout',
      description:
        'Ends this session, or with {"all": true} every session of the account: their tokens are refused at once.',
      tags,
      summary: 'End this session, or every session of the account with {"all": true}',
      middleware: [requireUser] as const,
      security: [{ bearerAuth: [] }],
      request: {
        body: {
          required: false,
          content: {
            'application/json': { schema: z.object({ all: z.boolean().default(false).openapi({ example: false }) }) },
          },
        },
      },
      responses: { 200: json(MessageSchema, 'Signed out'), 401: errorResponse('Not signed in') },
    }),
    async function logout(c) {
      const all = c.req.valid('json').all;
      await c.var.deps.auth.logout(c.var.accessToken, all ? 'global' : 'local').catch((error) => {
        throw fromAuth(error);
      });
      return c.json({ message: all ? 'Signed out everywhere' : 'Signed out' }, 200);
    },
  );

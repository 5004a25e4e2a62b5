// The signed-in user's account: edit it, reset the avatar, delete it (with the e-mailed code).
import { createRoute, z } from '@hono/zod-openapi';
import { requireUser } from '../lib/caller.ts';
import { transactionAs } from '../lib/db.ts';
import { queryAs } from '../lib/query.ts';
import { rpcStatement } from '../lib/rpc-statement.ts';
import { sql } from '../lib/sql-text.ts';
import { fromAuth, fromAuthAddress } from '../lib/auth-errors.ts';
import { AuthError } from '../lib/auth-api.ts';
import { invalidCode, verifyCode } from '../lib/codes.ts';
import { atLeast } from '../lib/fixed-time.ts';
import { ApiError, toApiError } from '../lib/errors.ts';
import { errorResponse } from '../lib/openapi-errors.ts';
import { createRouter } from '../lib/router.ts';
import { ownProfile } from '../lib/session.ts';
import type { RequestDeps } from '../lib/context.ts';
import type { Json } from '../database.types.ts';
import type { Caller } from '../lib/tokens.ts';
import {
  AvatarUrl,
  Bio,
  body,
  Code,
  DisplayName,
  Email,
  json,
  MessageSchema,
  Password,
  PasswordText,
  ProfileSchema,
  TimeZone,
  Username,
} from './schemas.ts';

const tags = ['account'];
const security = [{ bearerAuth: [] }];

const profileFields = {
  username: Username.optional(),
  display_name: DisplayName.optional(),
  bio: Bio.optional(),
  time_zone: TimeZone.optional(),
  is_private: z.boolean().optional().openapi({ example: false }),
  avatar_url: AvatarUrl.nullable().optional(),
};

/**
 * 403 second_factor_required unless the caller's session proved the second factor the account has (the database's rule,
 * private.require_aal2), checked before a code or a password is spent.
 */
async function requireSecondFactor(deps: RequestDeps, caller: Caller): Promise<void> {
  await queryAs(deps, caller, sql`select private.require_aal2()`);
}

/** Who edits their account, as the request's context holds them. */
type Editor = { deps: RequestDeps; caller: Caller; accessToken: string; clientIp: string | undefined };
/** PUT /user's body: profile fields, and credentials. */
type Edit = { email?: string; password?: string; current_password?: string } & Record<string, unknown>;

/** Auth refused the new e-mail address (the profile edit was rolled back with it). */
class AddressRefused extends Error {
  constructor(readonly refusal: unknown) {
    super('the new e-mail address was refused');
  }
}

/**
 * The profile edit and the credential changes in one transaction: if Auth refuses the new e-mail or password,
 * the profile edit is rolled back too. Auth's refusal is explained once the transaction has given its
 * connection back.
 */
async function editInOneTransaction(
  v: Editor,
  profileChanges: Record<string, unknown>,
  credentials: Record<string, string>,
) {
  let refusal: unknown;
  return await transactionAs(v.deps, v.caller, async (run) => {
    const [row] = await run(rpcStatement('update_profile', { p_changes: profileChanges as Json }));
    if (Object.keys(credentials).length > 0) {
      await v.deps.auth.updateUser(v.accessToken, credentials, v.clientIp).catch((error) => {
        refusal = error;
        throw error;
      });
    }
    return row.result;
  }).catch((error) => {
    if (refusal === undefined) throw error;
    throw credentials.email ? new AddressRefused(refusal) : fromAuth(refusal);
  });
}

/** The least time an answer to a new e-mail takes: Auth e-mails a free address, and refuses a taken one at once. */
const emailChangeMs = 1000;

/**
 * Whether Auth refused to e-mail the codes for now (its project-wide e-mail limit, or its max_frequency when a
 * minute has just passed): something only a free address meets, since Auth refuses a taken one first.
 */
function mailHeldBack(refusal: unknown): boolean {
  return refusal instanceof AuthError && refusal.code === 'over_email_send_rate_limit';
}

async function editAccountOf(v: Editor, changes: Edit) {
  const { email, password, current_password: currentPassword, ...profileChanges } = changes;
  const { deps, caller, clientIp } = v;
  const credentials: Record<string, string> = {};
  if (email) credentials.email = email;
  // Auth checks the current password again for a password change (config.toml require_current_password).
  if (password) Object.assign(credentials, { password, current_password: currentPassword ?? '' });
  const changesCredentials = Object.keys(credentials).length > 0;
  if (changesCredentials) {
    if (!currentPassword) {
      throw new ApiError(400, 'current_password_required', 'Give current_password to change the e-mail or password');
    }
    await requireSecondFactor(deps, caller);
    const current = await ownProfile(deps, caller);
    // Proving the current password makes a short-lived session of its own, ended at once.
    const proof = await deps.auth.signIn(current.email, currentPassword, clientIp).catch((error) => {
      throw fromAuth(error, { invalid_credentials: [401, 'wrong_password', 'The current password is wrong'] });
    });
    await deps.auth.logout(proof.access_token, 'local').catch(() => undefined);
    // One new address a minute, whatever it is, spent before Auth is asked (private.take_email_change_slot).
    if (email && email !== current.email) await queryAs(deps, caller, sql`select private.take_email_change_slot()`);
  }
  const edit = (credentialChanges: Record<string, string>) =>
    editInOneTransaction(v, profileChanges, credentialChanges);
  const profile = await edit(credentials).catch(async (error) => {
    if (!(error instanceof AddressRefused)) throw error;
    const answer: unknown = mailHeldBack(error.refusal)
      ? undefined
      : await fromAuthAddress(deps, error.refusal, email!).catch((refused) => toApiError(refused) ?? refused);
    // An address that is taken or banned is answered as one that is free (the change then waits for a code
    // that never comes), and so is a free one Auth will not e-mail now: no one learns from this answer whom an
    // address belongs to. The rest of the edit holds.
    if (
      answer !== undefined && !(answer instanceof ApiError && ['email_taken', 'email_banned'].includes(answer.code))
    ) throw answer;
    const { email: _refused, ...rest } = credentials;
    return await edit(rest);
  });
  return { profile, email_change_pending: Boolean(email) && email !== profile.email };
}

export const account = createRouter()
  .openapi(
    createRoute({
      method: 'put',
      path: '/user',
      operationId: 'updateAccount',
      tags,
      summary: 'Edit the profile; changing the e-mail or the password needs the current password',
      description:
        'A new e-mail takes effect once confirmed with the codes Supabase Auth sends to both addresses (POST ' +
        '/auth/confirm_email with type email_change). An address that belongs to another account, or to a banned ' +
        'one, is answered exactly as a free one (email_change_pending true) and no code is sent: the answer never ' +
        'tells whose an address is. One new address a minute, whatever it is (a second within the minute is a 429), ' +
        'and the answer takes at least a second.',
      middleware: [requireUser] as const,
      security,
      request: body(
        z.object({
          ...profileFields,
          email: Email.optional(),
          password: Password.optional(),
          current_password: PasswordText.min(1).max(72).optional().openapi({ example: 'Tr0ub4dor&3' }),
        }).strict(),
      ),
      responses: {
        200: json(
          z.object({ profile: ProfileSchema, email_change_pending: z.boolean().openapi({ example: false }) }).openapi(
            'AccountEdited',
          ),
          'Edited',
        ),
        400: errorResponse('Invalid field, reserved username, weak or same password'),
        401: errorResponse('Not signed in, or wrong current password'),
        403: errorResponse(
          'Changing the e-mail or password of an account with a second factor needs an aal2 session ' +
            '(second_factor_required)',
        ),
        409: errorResponse('Username taken'),
        429: errorResponse(
          'A new e-mail asked for again within a minute (too_many_email_changes), or a write limit of profile edits',
        ),
      },
    }),
    async function updateAccount(c) {
      const changes = c.req.valid('json');
      // Whatever the new address, the answer comes no sooner than emailChangeMs: its time tells nothing either.
      const answer = changes.email
        ? await atLeast(emailChangeMs, () => editAccountOf(c.var, changes))
        : await editAccountOf(c.var, changes);
      return c.json(answer, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'put',
      path: '/resetprofilepicture',
      operationId: 'resetProfilePicture',
      description: 'Removes your avatar: your profile shows none until you set avatar_url again.',
      tags,
      summary: 'Back to the default avatar',
      middleware: [requireUser] as const,
      security,
      responses: { 200: json(z.object({ profile: ProfileSchema }), 'Reset'), 401: errorResponse('Not signed in') },
    }),
    async function resetProfilePicture(c) {
      const [row] = await queryAs(c.var.deps, c.var.caller, rpcStatement('reset_profile_picture', {}));
      return c.json({ profile: row.result }, 200);
    },
  )
  .openapi(
    createRoute({
      method: 'delete',
      path: '/user',
      operationId: 'deleteAccount',
      description:
        'Deletes your account and everything it owns (posts, comments, likes, follows, blocks, close friends, the ' +
        'reports you filed), with the code POST /auth/requestdeletecode e-mailed you. Your tokens stop working at ' +
        'once. The ban history keeps its rows.',
      tags,
      summary: 'Delete the account and everything it owns, with the code from POST /auth/requestdeletecode',
      middleware: [requireUser] as const,
      security,
      request: body(z.object({ code: Code })),
      responses: {
        200: json(MessageSchema, 'Deleted'),
        400: errorResponse('Wrong or expired code'),
        401: errorResponse('Not signed in'),
        403: errorResponse(
          'An account with a second factor is deleted from an aal2 session only (second_factor_required)',
        ),
      },
    }),
    async function deleteAccount(c) {
      const { code } = c.req.valid('json');
      const { deps, caller, clientIp } = c.var;
      await requireSecondFactor(deps, caller);
      const profile = await ownProfile(deps, caller);
      const proof = await verifyCode(deps, 'magiclink', profile.email, code, clientIp);
      if (proof.user.id !== profile.id) throw invalidCode();
      // Deleting the Auth user cascades to the profile and everything it owns (see the migrations).
      await deps.auth.deleteUser(profile.id).catch((error) => {
        throw fromAuth(error);
      });
      return c.json({ message: 'Your account and everything it owned are deleted' }, 200);
    },
  );

// Two-factor with TOTP authenticator apps (docs/PRODUCT.md, "Two-factor"): the signed-in user's factors, through
// Supabase Auth's own MFA endpoints (supabase-js auth.mfa calls the same). What a verified factor then demands
// is the database's: private.require_aal2 (supabase/schemas/01_identity.sql) reads the token's aal claim. DELETE
// /user/mfa/{factorId} comes last: /user/mfa/recovery is a path of its own, not a factor's id.
import { createRoute, z } from '@hono/zod-openapi';
import { requireUser } from '../lib/caller.ts';
import { fromAuth } from '../lib/auth-errors.ts';
import { invalidCode, mailOneTimeCode, verifyCode } from '../lib/codes.ts';
import { errorResponses } from '../lib/errors.ts';
import { queryAs } from '../lib/query.ts';
import { rpc } from '../lib/rpc.ts';
import { createRouter } from '../lib/router.ts';
import { ownProfile, sessionReply } from '../lib/session.ts';
import { sql } from '../lib/sql-text.ts';
import { server } from '../lib/tokens.ts';
import { body, Code, json, MfaFactorSummary, SessionSchema, Timestamp } from './schemas.ts';

const tags = ['account'];
const security = [{ bearerAuth: [] }];

const Factor = MfaFactorSummary.extend({ status: z.enum(['verified', 'unverified']), created_at: Timestamp }).openapi('MfaFactor');
const FactorParam = z.object({ factorId: z.uuid().openapi({ param: { name: 'factorId', in: 'path' } }) });
const Recovery = z.object({ requested_at: Timestamp, completes_at: Timestamp.openapi({ description: 'When the factors may be removed' }) })
  .openapi('FactorRecovery');
const TotpCode = z.string().regex(/^\d{6}$/, 'the 6-digit code of the authenticator app').openapi({ example: '492039' });

export const mfa = createRouter()
  .openapi(createRoute({
    method: 'get', path: '/user/mfa', operationId: 'listFactors', tags, security, summary: 'Your second factors',
    description: 'Your TOTP factors (verified, or enrolled and awaiting their first code), and the assurance level of this session.',
    middleware: [requireUser] as const,
    responses: {
      200: json(z.object({
        aal: z.enum(['aal1', 'aal2']), factors: z.array(Factor),
        recovery: Recovery.nullable().openapi({ description: 'A pending removal of your factors (POST /user/mfa/recovery)' }),
      }), 'Your factors'),
      ...errorResponses({ 401: 'Not signed in' }),
    },
  }), async (c) => {
    const user = await c.var.deps.auth.getUser(c.var.accessToken).catch((error) => {
      throw fromAuth(error);
    });
    const factors = (user.factors ?? []).map((f) => ({
      id: f.id, friendly_name: f.friendly_name ?? null, factor_type: f.factor_type, status: f.status, created_at: f.created_at,
    }));
    const recovery = await rpc(c.var.deps, c.var.caller, 'factor_recovery', {});
    return c.json({ aal: c.var.caller.claims.aal === 'aal2' ? 'aal2' as const : 'aal1' as const, factors, recovery } as never, 200);
  })
  .openapi(createRoute({
    method: 'post', path: '/user/mfa/totp', operationId: 'enrollTotp', tags, security, summary: 'Add an authenticator app',
    description: 'Enrolls a TOTP factor: answers its secret, as an otpauth:// URI and as a QR code (SVG) to scan. It counts once ' +
      'its first code is verified (POST /user/mfa/{factorId}/verify); an unverified one expires.',
    middleware: [requireUser] as const,
    request: body(z.object({ friendly_name: z.string().trim().min(1).max(60).optional().openapi({ example: 'My phone' }) })),
    responses: {
      200: json(z.object({
        id: z.uuid(), secret: z.string().openapi({ example: 'JBSWY3DPEHPK3PXP' }),
        uri: z.string().openapi({ example: 'otpauth://totp/DayKeeper:jane%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=DayKeeper' }),
        qr_code: z.string().openapi({ description: 'An SVG image, as a data: URI' }),
      }), 'Enrolled: verify a first code'),
      ...errorResponses({ 400: 'Invalid input', 401: 'Not signed in', 409: 'A factor with this name exists, or as many as allowed' }),
    },
  }), async (c) => {
    const name = c.req.valid('json').friendly_name ?? `Authenticator ${new Date().toISOString().slice(0, 16)}`;
    const enrolled = await c.var.deps.auth.enrollTotp(c.var.accessToken, name).catch((error) => {
      throw fromAuth(error);
    });
    return c.json({ id: enrolled.id, secret: enrolled.totp.secret, uri: enrolled.totp.uri, qr_code: enrolled.totp.qr_code }, 200);
  })
  .openapi(createRoute({
    method: 'post', path: '/user/mfa/{factorId}/verify', operationId: 'verifyFactor', tags, security,
    summary: 'Verify a code: the factor counts, and the session steps up to aal2',
    description: 'Checks the current code of the authenticator app. The first one verifies a new factor; each steps this ' +
      'session up to aal2 and answers its new tokens (the token sent keeps saying aal1): use them for what needs the second factor.',
    middleware: [requireUser] as const,
    request: { params: FactorParam, ...body(z.object({ code: TotpCode })) },
    responses: {
      200: json(SessionSchema, 'A session at aal2'),
      ...errorResponses({ 400: 'A wrong or expired code', 401: 'Not signed in', 404: 'No such factor of yours' }),
    },
  }), async (c) => {
    const { auth } = c.var.deps;
    const { factorId } = c.req.valid('param');
    const session = await auth.challenge(c.var.accessToken, factorId)
      .then((challenge) => auth.verifyFactor(c.var.accessToken, factorId, challenge.id, c.req.valid('json').code))
      .catch((error) => {
        throw fromAuth(error);
      });
    return c.json(await sessionReply(c.var.deps, session), 200);
  })
  .openapi(createRoute({
    method: 'post', path: '/user/mfa/recovery/code', operationId: 'requestFactorRecoveryCode', tags, security,
    summary: 'Lost the authenticator: e-mail a code to start removing the second factor',
    description: 'E-mails you the code POST /user/mfa/recovery needs. One a minute: a second request within it is a 429.',
    middleware: [requireUser] as const,
    responses: { 200: json(z.object({ message: z.string() }), 'Sent'), ...errorResponses({ 401: 'Not signed in', 429: 'A code was sent less than a minute ago' }) },
  }), async (c) => {
    await mailOneTimeCode(c.var.deps, c.var.caller, 'factor_recovery', c.var.clientIp);
    return c.json({ message: 'We e-mailed you a code: send it with POST /user/mfa/recovery' }, 200);
  })
  .openapi(createRoute({
    method: 'post', path: '/user/mfa/recovery', operationId: 'startFactorRecovery', tags, security,
    summary: 'Start removing the second factor: it goes 72 hours later unless cancelled',
    description: 'With the e-mailed code. From then on every session of yours is told when the factors go (GET /user/mfa, each ' +
      'new session\'s mfa.recovery); from a session that proved the factor you may cancel (DELETE /user/mfa/recovery). After 72 ' +
      'hours, POST /user/mfa/recovery/complete removes them. Asking again keeps the first wait.',
    middleware: [requireUser] as const,
    request: body(z.object({ code: Code })),
    responses: {
      202: json(Recovery, 'Started'),
      ...errorResponses({ 400: 'Wrong or expired code', 401: 'Not signed in', 409: 'The account has no second factor' }),
    },
  }), async (c) => {
    const { deps, caller, clientIp } = c.var;
    const profile = await ownProfile(deps, caller);
    const proof = await verifyCode(deps, 'magiclink', profile.email, c.req.valid('json').code, clientIp);
    // The code signed in a short-lived session of its own: it proved the mailbox, nothing more is kept of it.
    await deps.auth.logout(proof.access_token, 'local').catch(() => undefined);
    if (proof.user.id !== profile.id) throw invalidCode();
    const [row] = await queryAs(deps, server, sql`select private.start_factor_recovery(${profile.id}) as recovery`);
    return c.json(row.recovery, 202);
  })
  .openapi(createRoute({
    method: 'delete', path: '/user/mfa/recovery', operationId: 'cancelFactorRecovery', tags, security,
    summary: 'Cancel a pending removal of the second factor (from an aal2 session)',
    description: 'Whoever still has the authenticator is the owner: from a session that proved it, this ends a recovery someone ' +
      'started with your password and mailbox.',
    middleware: [requireUser] as const,
    responses: {
      200: json(z.object({ cancelled: z.literal(true) }), 'Cancelled'),
      ...errorResponses({ 401: 'Not signed in', 403: 'Needs an aal2 session', 404: 'No pending recovery' }),
    },
  }), async (c) => c.json(await rpc(c.var.deps, c.var.caller, 'cancel_factor_recovery', {}), 200))
  .openapi(createRoute({
    method: 'post', path: '/user/mfa/recovery/complete', operationId: 'completeFactorRecovery', tags, security,
    summary: 'Once the wait is over, remove the second factors',
    description: 'After the 72 hours of a recovery: your factors are removed, and your account signs in with its password alone. ' +
      'Before that, 409 recovery_pending says when.',
    middleware: [requireUser] as const,
    responses: {
      200: json(z.object({ removed: z.number().int() }), 'Removed'),
      ...errorResponses({ 401: 'Not signed in', 404: 'No pending recovery', 409: 'The wait is not over' }),
    },
  }), async (c) => c.json(await rpc(c.var.deps, c.var.caller, 'complete_factor_recovery', {}), 200))
  .openapi(createRoute({
    method: 'delete', path: '/user/mfa/{factorId}', operationId: 'removeFactor', tags, security, summary: 'Remove a second factor',
    description: 'Removes a factor; a verified one only from an aal2 session (Auth refuses otherwise), so a stolen password ' +
      'alone cannot turn the second factor off.',
    middleware: [requireUser] as const, request: { params: FactorParam },
    responses: {
      200: json(z.object({ deleted: z.literal(true), id: z.uuid() }), 'Removed'),
      ...errorResponses({ 400: 'Malformed id', 401: 'Not signed in', 403: 'Needs an aal2 session', 404: 'No such factor of yours' }),
    },
  }), async (c) => {
    const { factorId } = c.req.valid('param');
    await c.var.deps.auth.unenroll(c.var.accessToken, factorId).catch((error) => {
      throw fromAuth(error);
    });
    return c.json({ deleted: true as const, id: factorId }, 200);
  });

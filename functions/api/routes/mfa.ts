// Two-factor with TOTP authenticator apps (docs/PRODUCT.md, "Two-factor"): the signed-in user's factors, through
// Supabase Auth's own MFA endpoints (supabase-js auth.mfa calls the same). What a verified factor then demands
// is the database's: private.require_aal2 (supabase/schemas/27_sessions.sql) reads the token's aal claim.
import { createRoute, z } from '@hono/zod-openapi';
import { requireUser } from '../lib/caller.ts';
import { fromAuth } from '../lib/auth-errors.ts';
import { errorResponses } from '../lib/errors.ts';
import { createRouter } from '../lib/router.ts';
import { sessionReply } from '../lib/session.ts';
import { body, json, MfaFactorSummary, SessionSchema, Timestamp } from './schemas.ts';

const tags = ['account'];
const security = [{ bearerAuth: [] }];

const Factor = MfaFactorSummary.extend({ status: z.enum(['verified', 'unverified']), created_at: Timestamp }).openapi('MfaFactor');
const FactorParam = z.object({ factorId: z.uuid().openapi({ param: { name: 'factorId', in: 'path' } }) });
const TotpCode = z.string().regex(/^\d{6}$/, 'the 6-digit code of the authenticator app').openapi({ example: '492039' });

export const mfa = createRouter()
  .openapi(createRoute({
    method: 'get', path: '/user/mfa', operationId: 'listFactors', tags, security, summary: 'Your second factors',
    description: 'Your TOTP factors (verified, or enrolled and awaiting their first code), and the assurance level of this session.',
    middleware: [requireUser] as const,
    responses: {
      200: json(z.object({ aal: z.enum(['aal1', 'aal2']), factors: z.array(Factor) }), 'Your factors'),
      ...errorResponses({ 401: 'Not signed in' }),
    },
  }), async (c) => {
    const user = await c.var.deps.auth.getUser(c.var.accessToken).catch((error) => {
      throw fromAuth(error);
    });
    const factors = (user.factors ?? []).map((f) => ({
      id: f.id, friendly_name: f.friendly_name ?? null, factor_type: f.factor_type, status: f.status, created_at: f.created_at,
    }));
    return c.json({ aal: c.var.caller.claims.aal === 'aal2' ? 'aal2' as const : 'aal1' as const, factors } as never, 200);
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

// Middleware that resolves who is calling from the Authorization header.
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from './context.ts';
import { ApiError } from './errors.ts';
import { anonymous, bearerToken } from './tokens.ts';

/** Routes open to everyone: a valid token makes the caller a user, no token keeps them anonymous. */
export const optionalUser = createMiddleware<AppEnv>(async (c, next) => {
  const token = bearerToken(c.req.header('Authorization'));
  c.set('caller', token ? await c.var.deps.verifyToken(token) : anonymous);
  await next();
});

/** The OpenAPI `security` of an optionalUser route: anonymous, or a bearer token. */
export const optionalAuth: Record<string, string[]>[] = [{}, { bearerAuth: [] }];

/** What requireUser adds for its routes: the caller's verified access token, for the Auth endpoints that act as the user. */
type SignedIn = { Variables: { accessToken: string } };

/** Routes for signed-in users only. */
export const requireUser = createMiddleware<AppEnv & SignedIn>(async (c, next) => {
  const token = bearerToken(c.req.header('Authorization'));
  if (!token) throw new ApiError(401, 'unauthorized', 'Sign in first: send "Authorization: Bearer <access token>"');
  c.set('caller', await c.var.deps.verifyToken(token));
  c.set('accessToken', token);
  await next();
});

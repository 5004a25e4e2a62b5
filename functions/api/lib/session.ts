// What the facade answers once Auth has issued a session: the tokens, the user and their profile, read
// from the database as that user (which also proves the new token works).
import type { AuthSession } from './auth-api.ts';
import type { RequestDeps } from './context.ts';
import { queryAs } from './query.ts';
import { rpcStatement } from './rpc-statement.ts';
import type { Caller } from './tokens.ts';

/** The caller's own profile with their e-mail; 401 once their session has ended. */
export async function ownProfile(deps: RequestDeps, caller: Caller) {
  const [row] = await queryAs(deps, caller, rpcStatement('me', {}));
  return row.result;
}

export async function sessionReply(deps: RequestDeps, session: AuthSession) {
  const caller = await deps.verifyToken(session.access_token);
  const profile = await ownProfile(deps, caller);
  const factors = (session.user.factors ?? []).filter((factor) => factor.status === 'verified');
  const aal: 'aal1' | 'aal2' = caller.claims.aal === 'aal2' ? 'aal2' : 'aal1';
  // A pending removal of the factors is told to every new session of the account (docs/PRODUCT.md, "Two-factor").
  const recovery = factors.length === 0
    ? null
    : (await queryAs(deps, caller, rpcStatement('factor_recovery', {})))[0].result;
  return {
    session: {
      access_token: session.access_token,
      refresh_token: session.refresh_token,
      token_type: session.token_type,
      expires_in: session.expires_in,
      expires_at: session.expires_at,
    },
    user: { id: session.user.id, email: session.user.email ?? null },
    profile,
    // An account with a second factor signs in at aal1: the answer says to step up (docs/PRODUCT.md, "Two-factor").
    mfa: {
      aal,
      step_up_required: aal === 'aal1' && factors.length > 0,
      recovery,
      factors: factors.map((factor) => ({
        id: factor.id,
        friendly_name: factor.friendly_name ?? null,
        factor_type: factor.factor_type as 'totp' | 'phone' | 'webauthn',
      })),
    },
  };
}

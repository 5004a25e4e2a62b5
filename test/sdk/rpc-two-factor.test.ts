// rpc() of a new authenticator's owner proof: prove_factor_owner (supabase/schemas/31_second_factor_checks.sql).
// Allowed: the owner with the password; denied: a wrong password, another account's factor, anon.
import { describe, expect, it } from 'vitest';
import { anonSdk, refusal, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';
import { defaultPassword } from '../helpers/users.ts';

describe.skipIf(!authIsRunning)("rpc: proving a new factor's owner", () => {
  it('prove_factor_owner: the owner proves with the password; a wrong one, a stranger and anon are refused', async () => {
    const [owner, stranger] = await Promise.all([sdkUser('owner'), sdkUser('stranger')]);
    const { data: factor } = await owner.sdk.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'phone' });
    const id = factor!.id;
    expect(refusal(await owner.sdk.rpc('prove_factor_owner', { p_factor_id: id, p_password: 'not mine' })))
      .toEqual({ status: 401, code: 'PT401', hint: 'wrong_password' });
    expect(refusal(await owner.sdk.rpc('prove_factor_owner', { p_factor_id: id })))
      .toEqual({ status: 400, code: 'PT400', hint: 'validation_failed' });
    expect(refusal(await stranger.sdk.rpc('prove_factor_owner', { p_factor_id: id, p_password: defaultPassword })))
      .toEqual({ status: 404, code: 'PT404', hint: 'factor_not_found' });
    expect(refusal(await anonSdk().rpc('prove_factor_owner', { p_factor_id: id, p_password: defaultPassword })))
      .toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    expect((await owner.sdk.rpc('prove_factor_owner', { p_factor_id: id, p_password: defaultPassword })).data)
      .toEqual({ proved: true, factor_id: id });
  });
});

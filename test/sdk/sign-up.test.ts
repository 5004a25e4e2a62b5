// Sign-up through supabase-js (`auth.signUp` straight to Supabase Auth, no facade) gets the facade's refusals:
// Auth's before_user_created hook answers with the facade's status, and the facade's code begins the message.
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { createAccount, uniqueUsername } from '../helpers/accounts.ts';
import { anonSdk } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';
import { defaultPassword, uniqueEmail } from '../helpers/users.ts';

function signUp(email: string, data: Record<string, string>) {
  return anonSdk().auth.signUp({ email, password: defaultPassword, options: { data } });
}

async function accountsOf(email: string): Promise<number> {
  const [{ count }] = await asRoot`select count(*)::int as count from auth.users where email = ${email}`;
  return count;
}

describe.skipIf(!authIsRunning)('auth.signUp with supabase-js', () => {
  it('creates the account and its profile with the chosen username, time zone and display name', async () => {
    const email = uniqueEmail('sdk_signup');
    const username = uniqueUsername('sdk');
    const { data, error } = await signUp(email, { username, time_zone: 'Europe/Paris', display_name: 'Sdk User' });
    expect(error).toBeNull();
    expect(data.session).toBeNull(); // confirmed with the e-mailed code first
    const [profile] = await asRoot`
      select username, time_zone, display_name from public.profiles where id = ${data.user!.id}`;
    expect(profile).toEqual({ username, time_zone: 'Europe/Paris', display_name: 'Sdk User' });
  });

  it.each([
    ['a reserved username', { username: 'feed' }, 400, 'username_reserved', 'The username "feed" is reserved'],
    [
      'a malformed username',
      { username: 'No Spaces!' },
      400,
      'invalid_username',
      'A username is 3 to 30 of a-z, 0-9, dot and underscore',
    ],
    [
      'an unknown time zone',
      { username: uniqueUsername('sdk_tz'), time_zone: 'Mars/Base' },
      400,
      'invalid_time_zone',
      '"Mars/Base" is not a time zone name such as Europe/Paris',
    ],
  ])('refuses %s with a 4xx naming it, and creates nothing', async (_case, data, status, code, message) => {
    const email = uniqueEmail('sdk_refused');
    const { error } = await signUp(email, data);
    expect(error?.name).toBe('AuthApiError'); // not AuthRetryableFetchError, which a 500 gives
    expect(error?.status).toBe(status);
    expect(error?.message).toBe(`${code}: ${message}`);
    expect(await accountsOf(email)).toBe(0);
  });

  it('refuses a taken username with 409 username_taken', async () => {
    const owner = await createAccount('sdk_owner');
    const email = uniqueEmail('sdk_taker');
    const { error } = await signUp(email, { username: owner.username });
    expect(error?.status).toBe(409);
    expect(error?.message).toBe(`username_taken: The username "${owner.username}" is taken`);
    expect(await accountsOf(email)).toBe(0);
  });

  it('refuses the e-mail of a deleted banned account with 403 email_banned', async () => {
    const email = uniqueEmail('sdk_banned');
    await asRoot`insert into private.banned_emails (email) values (${email})`;
    const { error } = await signUp(email, { username: uniqueUsername('sdk_again') });
    expect(error?.status).toBe(403);
    expect(error?.message).toBe('email_banned: This e-mail address belongs to a banned account');
    expect(await accountsOf(email)).toBe(0);
  });

  it('lets an account without a username through: the sign-up trigger derives one', async () => {
    const email = uniqueEmail('sdk_nameless');
    const { data, error } = await signUp(email, {});
    expect(error).toBeNull();
    const [profile] = await asRoot`select username from public.profiles where id = ${data.user!.id}`;
    expect(profile.username).toMatch(/^sdk_nameless/);
  });
});

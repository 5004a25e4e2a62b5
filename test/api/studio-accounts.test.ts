// Issue 53: Studio's Authentication page ("Add user", "Update user": Auth's admin API with the service key, as
// test/helpers/studio.ts sends it) and its table and SQL editors (as `postgres`, on auth.users) keep the product's
// rules on accounts: one address per account whatever its case, the e-mail identity in line with the account, and
// the password rule where Auth applies it (docs/DATABASE.md, "Admins in Studio").
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { asRoot, errorOf } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { studioAuth, tableEditor } from '../helpers/studio.ts';
import { authIsRunning } from '../helpers/stack.ts';
import { defaultPassword, uniqueEmail } from '../helpers/users.ts';

const studio = describe.skipIf(!authIsRunning);

const emailOf = async (id: string) => (await asRoot`select email from auth.users where id = ${id}`)[0].email;
const identityEmailOf = async (id: string) =>
  (await asRoot`select identity_data ->> 'email' as email from auth.identities where user_id = ${id} and provider = 'email'`)[
    0
  ]
    .email;

studio('one address per account, whatever its case, through every door', () => {
  it("the table editor: another account's address in another case is refused with email_taken; nothing changes", async () => {
    const [taken, mover] = await Promise.all([createAccount('taken'), createAccount('mover')]);
    for (
      const edit of [
        tableEditor.update('auth.users', { email: taken.email.toUpperCase() }, { id: mover.id }),
        asRoot`update auth.users set email = ${` ${
          taken.email.replace(/^./, (c) => c.toUpperCase())
        }`} where id = ${mover.id}`,
      ]
    ) expect(await errorOf(edit)).toMatchObject({ code: 'PT409', hint: 'email_taken' });
    expect([await emailOf(mover.id), await identityEmailOf(mover.id)]).toEqual([mover.email, mover.email]);
    const login = await api('POST', '/auth/login', { json: { login: mover.username, password: defaultPassword } });
    expect(login.status).toBe(200);
  });

  it('a new address written in another case is kept in lower case, the identity follows, and sign-in finds it', async () => {
    const mover = await createAccount('mover');
    const address = uniqueEmail('moved.here');
    await tableEditor.update('auth.users', { email: address.toUpperCase() }, { id: mover.id });
    expect([await emailOf(mover.id), await identityEmailOf(mover.id)]).toEqual([address, address]);
    for (const login of [mover.username, address, address.toUpperCase()]) {
      const answer = await api('POST', '/auth/login', { json: { login, password: defaultPassword } });
      expect([login, answer.status]).toEqual([login, 200]);
    }
  });

  it('an insert in SQL with an address another account has, in another case, is refused', async () => {
    const taken = await createAccount('taken');
    const refused = asRoot`
      insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
      values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated',
        ${taken.email.toUpperCase()}, '{}', now(), now())`;
    expect(await errorOf(refused)).toMatchObject({ code: 'PT409', hint: 'email_taken' });
  });

  // apps/studio/data/auth/user-create-mutation.ts and user-update-mutation.ts: POST /admin/users, PUT /admin/users/{id}.
  it("Add user and Update user with another account's address in another case are refused, nothing changes", async () => {
    const [taken, member] = await Promise.all([createAccount('taken'), createAccount('member')]);
    const added = await studioAuth('POST', '/admin/users', {
      email: taken.email.toUpperCase(),
      password: defaultPassword,
      email_confirm: true,
    });
    expect([added.status, added.body.error_code]).toEqual([422, 'email_exists']);
    // Auth's update has no check of its own: the database's refusal is what Studio shows.
    const updated = await studioAuth('PUT', `/admin/users/${member.id}`, { email: taken.email.toUpperCase() });
    expect([updated.status, updated.body]).toMatchObject([409, { code: 'PT409', hint: 'email_taken' }]);
    expect([await emailOf(member.id), await identityEmailOf(member.id)]).toEqual([member.email, member.email]);
  });

  it('Update user with a free address in another case: the account and its identity take it in lower case', async () => {
    const member = await createAccount('member');
    const address = uniqueEmail('admin.moved');
    const updated = await studioAuth('PUT', `/admin/users/${member.id}`, { email: address.toUpperCase() });
    expect(updated.status).toBe(200);
    expect([await emailOf(member.id), await identityEmailOf(member.id)]).toEqual([address, address]);
  });
});

studio("the password rule on Auth's admin door (8 to 72 characters)", () => {
  it('Update user refuses a password under 8 or over 72 characters, and takes one within', async () => {
    const member = await createAccount('member');
    const short = await studioAuth('PUT', `/admin/users/${member.id}`, { password: 'abc' });
    expect([short.status, short.body.error_code]).toEqual([422, 'weak_password']);
    const long = await studioAuth('PUT', `/admin/users/${member.id}`, { password: 'x'.repeat(80) });
    expect([long.status, long.body.error_code]).toEqual([400, 'validation_failed']);
    for (const password of ['abc', 'x'.repeat(80)]) {
      expect((await api('POST', '/auth/login', { json: { login: member.username, password } })).status).not.toBe(200);
    }
    expect((await studioAuth('PUT', `/admin/users/${member.id}`, { password: 'a chosen password' })).status).toBe(200);
    expect(
      (await api('POST', '/auth/login', { json: { login: member.username, password: 'a chosen password' } })).status,
    )
      .toBe(200);
  });
});

// A known limitation, pinned so that an Auth that starts applying the rule here fails this test and the docs are
// brought up to date: Auth's adminUserCreate (v2.189.0) checks no password strength, and its bcrypt panics past 72
// bytes. The database only ever sees the hash (docs/DATABASE.md, "Admins in Studio": Add user).
studio("Add user: Auth's admin create applies no password rule (known limitation)", () => {
  it('takes a password under 8 characters, and fails with a 500 (no account) over 72', async () => {
    const short = uniqueEmail('shortpass');
    expect((await studioAuth('POST', '/admin/users', { email: short, password: 'abc', email_confirm: true })).status)
      .toBe(200);
    const long = uniqueEmail('longpass');
    const refused = await studioAuth('POST', '/admin/users', {
      email: long,
      password: 'x'.repeat(80),
      email_confirm: true,
    });
    expect(refused.status).toBe(500);
    expect(await asRoot`select id from auth.users where email = ${long}`).toEqual([]);
  });
});

studio('the integrity report names what a load with triggers off could leave', () => {
  it('an address in another case of another account, and an identity out of line, each with its repair', async () => {
    const [taken, mover] = await Promise.all([createAccount('taken'), createAccount('mover')]);
    const problemsOf = async () =>
      (await asRoot`select problem from moderation.integrity_report()
        where element_id in (${taken.id}, ${mover.id}) order by problem, element_id`).map((row) => row.problem);
    await asRoot.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update auth.users set email = ${taken.email.toUpperCase()} where id = ${mover.id}`;
    });
    expect(await problemsOf()).toEqual(['e-mail', 'e-mail', 'e-mail identity']);
    const [repair] = await asRoot`select repair from moderation.integrity_report()
      where element_id = ${mover.id} and problem = 'e-mail'`;
    expect(repair.repair).toContain('<another address>');
    // The repair an admin would type: another address, through the triggers, and the identity follows.
    await tableEditor.update('auth.users', { email: mover.email }, { id: mover.id });
    expect(await problemsOf()).toEqual([]);
  });
});

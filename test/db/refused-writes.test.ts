// Writes that must be refused, tried directly on the tables as a supabase-js client would (PostgREST),
// each next to the allowed case so the test proves the refusal is the rule and not a broken table.
import postgres from 'postgres';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Account, createAccount } from '../helpers/accounts.ts';
import { anon, as, asRoot, errorOf, type Tx } from '../helpers/db.ts';
import { authIsRunning, stack } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('direct writes through RLS', () => {
  let alice: Account;
  let bob: Account;
  let carol: Account;
  let alicePost: string;

  beforeAll(async () => {
    alice = await createAccount('alice');
    bob = await createAccount('bob');
    carol = await createAccount('carol');
    [{ id: alicePost }] = await as(alice, (tx) => tx`insert into public.posts (body) values ('my day') returning id`);
  });

  it('a like is written only as oneself', async () => {
    const forged = await errorOf(
      as(bob, (tx) => tx`insert into public.post_likes (post_id, user_id) values (${alicePost}, ${carol.id})`),
    );
    expect(forged.code).toBe('42501'); // user_id is not a column bob may write
    const own = await as(
      bob,
      (tx) => tx`insert into public.post_likes (post_id) values (${alicePost}) returning user_id`,
    );
    expect(own).toEqual([{ user_id: bob.id }]);
  });

  it("nobody may delete another user's like", async () => {
    const deleted = await as(
      carol,
      (tx) => tx`delete from public.post_likes where user_id = ${bob.id} returning post_id`,
    );
    expect(deleted).toEqual([]);
    expect(await asRoot`select 1 from public.post_likes where user_id = ${bob.id}`).toHaveLength(1);
  });

  it('nobody may follow someone who blocked them', async () => {
    const dave = await createAccount('dave');
    const erin = await createAccount('erin');
    await as(erin, (tx) => tx`insert into public.blocks (blocked_id) values (${dave.id})`);
    const refused = await errorOf(
      as(dave, (tx) => tx`insert into public.follows (follower_id, followee_id) values (${dave.id}, ${erin.id})`),
    );
    // Erin is invisible to dave: refused exactly as an id nobody has (see hidden-relations.test.ts).
    expect(refused).toMatchObject({
      code: '42501',
      message: 'new row violates row-level security policy for table "follows"',
    });
    const friend = await errorOf(
      as(dave, (tx) => tx`insert into public.close_friends (friend_id) values (${erin.id})`),
    );
    expect(friend).toMatchObject({
      code: '42501',
      message: 'new row violates row-level security policy for table "close_friends"',
    });
    const allowed = await as(
      dave,
      (tx) =>
        tx`insert into public.follows (follower_id, followee_id) values (${dave.id}, ${alice.id}) returning status`,
    );
    expect(allowed).toEqual([{ status: 'accepted' }]);
  });

  it('a follow of a private account is a request, whatever status the client sends', async () => {
    const shy = await createAccount('shy', { isPrivate: true });
    const forged = await errorOf(
      as(
        bob,
        (tx) =>
          tx`insert into public.follows (follower_id, followee_id, status) values (${bob.id}, ${shy.id}, 'accepted')`,
      ),
    );
    expect(forged.code).toBe('42501'); // status is not writable on insert
    const [row] = await as(
      bob,
      (tx) => tx`insert into public.follows (follower_id, followee_id) values (${bob.id}, ${shy.id}) returning status`,
    );
    expect(row.status).toBe('pending');
    const selfAccept = await as(
      bob,
      (tx) =>
        tx`update public.follows set status = 'accepted' where follower_id = ${bob.id} and followee_id = ${shy.id} returning status`,
    );
    expect(selfAccept).toEqual([]);
    const accepted = await as(
      shy,
      (tx) =>
        tx`update public.follows set status = 'accepted' where follower_id = ${bob.id} and followee_id = ${shy.id} returning status`,
    );
    expect(accepted).toEqual([{ status: 'accepted' }]);
  });

  it("nobody edits or deletes another's post", async () => {
    const edited = await as(
      bob,
      (tx) => tx`update public.posts set body = 'hacked' where id = ${alicePost} returning id`,
    );
    expect(edited).toEqual([]);
    const deleted = await as(bob, (tx) => tx`delete from public.posts where id = ${alicePost} returning id`);
    expect(deleted).toEqual([]);
    const own = await as(
      alice,
      (tx) => tx`update public.posts set body = 'my edited day' where id = ${alicePost} returning body, edited_at`,
    );
    expect(own[0].body).toBe('my edited day');
    expect(own[0].edited_at).not.toBeNull();
  });

  it("a post's day, author, counters and ban are not the client's to write", async () => {
    for (
      const statement of [
        (tx: Tx) => tx`insert into public.posts (body, day) values ('x', '2001-01-01')`,
        (tx: Tx) => tx`insert into public.posts (body, author_id) values ('x', ${bob.id})`,
        (tx: Tx) => tx`update public.posts set day = '2001-01-01' where id = ${alicePost}`,
        (tx: Tx) => tx`update public.posts set banned_at = null where id = ${alicePost}`,
        (tx: Tx) => tx`update public.profiles set banned_at = null where id = ${alice.id}`,
      ]
    ) {
      expect((await errorOf(as(alice, statement))).code).toBe('42501');
    }
    // The counters are refused by their guard, with its code (supabase/ERRORS.md).
    for (
      const statement of [
        (tx: Tx) => tx`update public.posts set likes_count = 1000 where id = ${alicePost}`,
        (tx: Tx) => tx`update public.profiles set followers_count = 1000 where id = ${alice.id}`,
      ]
    ) {
      expect((await errorOf(as(alice, statement))).hint).toBe('counter_is_derived');
    }
  });

  it('nobody makes themself admin or reads who is', async () => {
    expect((await errorOf(as(alice, (tx) => tx`insert into private.admins (user_id) values (${alice.id})`))).code).toBe(
      '42501',
    );
    expect((await errorOf(as(alice, (tx) => tx`select * from private.admins`))).code).toBe('42501');
    expect((await errorOf(as(alice, (tx) => tx`select private.grant_admin(${alice.username})`))).code).toBe('42501');
  });

  it("profiles: only one's own, and only the editable columns", async () => {
    const other = await as(
      bob,
      (tx) => tx`update public.profiles set bio = 'not yours' where id = ${alice.id} returning id`,
    );
    expect(other).toEqual([]);
    const own = await as(bob, (tx) => tx`update public.profiles set bio = 'mine' where id = ${bob.id} returning bio`);
    expect(own).toEqual([{ bio: 'mine' }]);
    expect(
      (await errorOf(
        as(bob, (tx) => tx`insert into public.profiles (id, username) values (gen_random_uuid(), 'fresh_name')`),
      )).code,
    ).toBe('42501');
    expect((await errorOf(as(bob, (tx) => tx`delete from public.profiles where id = ${bob.id}`))).code).toBe('42501');
  });

  it('usernames: format, reserved words and case-insensitive uniqueness hold on edit', async () => {
    const reserved = await errorOf(
      as(bob, (tx) => tx`update public.profiles set username = 'admin' where id = ${bob.id}`),
    );
    expect(reserved).toMatchObject({ code: 'PT400', hint: 'username_reserved' });
    const taken = await errorOf(
      as(bob, (tx) => tx`update public.profiles set username = ${alice.username.toUpperCase()} where id = ${bob.id}`),
    );
    expect(taken).toMatchObject({ code: 'PT409', hint: 'username_taken' });
    const malformed = await errorOf(
      as(bob, (tx) => tx`update public.profiles set username = 'no spaces!' where id = ${bob.id}`),
    );
    // The API's code, whoever writes (issue 53: not the name of the table's check).
    expect(malformed).toMatchObject({ code: 'PT400', hint: 'invalid_username' });
    // Postgres would read POSIX strings ('XYZ-167' is 167 hours from UTC) and 'localtime': not zone names.
    for (
      const zone of ['Mars/Olympus', 'XYZ-167', 'abc+3', 'localtime', 'posix/Europe/Paris', 'europe/paris', ' UTC']
    ) {
      const badZone = await errorOf(
        as(bob, (tx) => tx`update public.profiles set time_zone = ${zone} where id = ${bob.id}`),
      );
      expect([zone, badZone.code, badZone.hint]).toEqual([zone, 'PT400', 'invalid_time_zone']);
    }
    for (const name of ['Bob\u202Eboj', 'Bob\u0007', 'Bob\nBob']) {
      const badName = await errorOf(
        as(bob, (tx) => tx`update public.profiles set display_name = ${name} where id = ${bob.id}`),
      );
      expect([name, badName.code]).toEqual([name, '23514']);
    }
    const [renamed] = await as(
      bob,
      (tx) => tx`update public.profiles set display_name = 'Bób 李' where id = ${bob.id} returning display_name`,
    );
    expect(renamed.display_name).toBe('Bób 李');
    for (const avatar of ['javascript:alert(1)', 'https://elsewhere.example/a.png', 'bob/../../x.png']) {
      const badAvatar = await errorOf(
        as(bob, (tx) => tx`update public.profiles set avatar_url = ${avatar} where id = ${bob.id}`),
      );
      expect([avatar, badAvatar.code]).toEqual([avatar, '23514']);
    }
    const [avatar] = await as(
      bob,
      (tx) =>
        tx`update public.profiles set avatar_url = ${`${bob.id}/avatar-2.png`} where id = ${bob.id} returning avatar_url`,
    );
    expect(avatar.avatar_url).toBe(`${bob.id}/avatar-2.png`);
    for (const zone of ['Pacific/Kiritimati', 'America/New_York', 'UTC']) {
      const [row] = await as(
        bob,
        (tx) => tx`update public.profiles set time_zone = ${zone} where id = ${bob.id} returning time_zone`,
      );
      expect(row.time_zone).toBe(zone);
    }
  });

  it('anonymous callers write nothing', async () => {
    expect((await errorOf(as(anon, (tx) => tx`insert into public.posts (body) values ('anon')`))).code).toBe('42501');
    expect((await errorOf(as(anon, (tx) => tx`insert into public.post_likes (post_id) values (${alicePost})`))).code)
      .toBe('42501');
  });

  it('a comment goes only on a visible post, and a reply only into the same post', async () => {
    const [secret] = await as(
      alice,
      (tx) => tx`insert into public.posts (body, privacy) values ('only me', 'private') returning id`,
    );
    const hidden = await errorOf(
      as(bob, (tx) => tx`insert into public.comments (post_id, body) values (${secret.id}, 'peek')`),
    );
    expect(hidden.code).toBe('42501');
    const [top] = await as(
      bob,
      (tx) => tx`insert into public.comments (post_id, body) values (${alicePost}, 'hi') returning id`,
    );
    const [otherPost] = await as(carol, (tx) => tx`insert into public.posts (body) values ('carol day') returning id`);
    const crossed = await errorOf(
      as(
        carol,
        (tx) =>
          tx`insert into public.comments (post_id, parent_id, body) values (${otherPost.id}, ${top.id}, 'wrong thread')`,
      ),
    );
    expect(crossed).toMatchObject({ code: 'PT404', hint: 'comment_not_found' });
    const reply = await as(
      carol,
      (tx) =>
        tx`insert into public.comments (post_id, parent_id, body) values (${alicePost}, ${top.id}, 'reply') returning parent_id`,
    );
    expect(reply).toEqual([{ parent_id: top.id }]);
  });

  it('a signed-out session writes nothing, even with an unexpired token', async () => {
    const frank = await createAccount('frank');
    await asRoot`delete from auth.sessions where user_id = ${frank.id}`;
    const refused = await errorOf(as(frank, (tx) => tx`insert into public.posts (body) values ('after logout')`));
    expect(refused.code).toBe('42501');
    expect(await as(frank, (tx) => tx`select private.uid() as uid`)).toEqual([{ uid: null }]);
  });

  it('checks the session once per transaction and claims: the next transaction sees a sign-out, other claims are checked again', async () => {
    const [gina, hal] = await Promise.all([createAccount('gina'), createAccount('hal')]);
    // One session, so that a second transaction would meet whatever the first left behind.
    const url = new URL(stack.dbUrl);
    url.username = 'authenticator';
    const session = postgres(url.toString(), { max: 1, onnotice: () => {} });
    const uidOf = (tx: Tx, actor: Account) =>
      tx`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${
        JSON.stringify(actor.claims)
      }, true)`
        .then(() => tx`select private.uid() as uid`).then(([row]) => row.uid);
    try {
      const inOne = await session.begin(async (
        tx,
      ) => [await uidOf(tx, gina), await uidOf(tx, hal), await uidOf(tx, gina)]);
      expect(inOne).toEqual([gina.id, hal.id, gina.id]);
      await asRoot`delete from auth.sessions where user_id = ${gina.id}`;
      expect(await session.begin((tx) => uidOf(tx, gina))).toBeNull();
      expect(await session.begin((tx) => uidOf(tx, hal))).toBe(hal.id);
    } finally {
      await session.end();
    }
  });
});

describe.skipIf(!authIsRunning)('sign-up through Auth', () => {
  it('gives an account without a chosen username (a Google sign-up) a valid, unique one from its e-mail', async () => {
    const { AuthClient } = await import('@supabase/auth-js');
    const { stack } = await import('../helpers/stack.ts');
    const admin = new AuthClient({
      url: `${stack.apiUrl}/auth/v1`,
      headers: { apikey: stack.serviceRoleKey, Authorization: `Bearer ${stack.serviceRoleKey}` },
      persistSession: false,
    }).admin;
    const local = `Jo-Hn+${Date.now()}`;
    const first = await admin.createUser({ email: `${local}@gmail.test`, email_confirm: true });
    const second = await admin.createUser({
      email: `${local}@other.test`,
      email_confirm: true,
      user_metadata: { full_name: 'John\u202E Doe\n' },
    });
    const [a] = await asRoot`select username from public.profiles where id = ${first.data.user!.id}`;
    const [b] = await asRoot`select username, display_name from public.profiles where id = ${second.data.user!.id}`;
    expect(a.username).toMatch(/^john\d+$/);
    expect(b.username).toMatch(new RegExp(`^${a.username}_\\d{4}$`));
    // The provider's name becomes the display name, without the characters a display name refuses.
    expect(b.display_name).toBe('John Doe');
  });
});

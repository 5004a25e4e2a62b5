// Search (public.search): accounts by name and posts by words, ranked, by pages, only what the caller may see,
// with the text searched literally.
import { describe, expect, it } from 'vitest';
import { type Account, banDirectly, createAccount, importedPasswordHash } from '../helpers/accounts.ts';
import { anon, asRoot, errorOf, rpc } from '../helpers/db.ts';
import type { Actor } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

/** A word no other test writes, so each test sees only its own data. */
const uniqueWord = () => `w${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;

const postBodies = async (reader: Actor, q: string) =>
  (await rpc(reader, 'search', { p_q: q, p_type: 'posts' })).items.map((post: { body: string }) => post.body);
const usernames = async (reader: Actor, q: string) =>
  (await rpc(reader, 'search', { p_q: q, p_type: 'users' })).items.map((user: { username: string }) => user.username);

async function named(label: string, displayName: string): Promise<Account> {
  const account = await createAccount(label);
  await asRoot`update public.profiles set display_name = ${displayName} where id = ${account.id}`;
  return account;
}

describe.skipIf(!authIsRunning)('search', () => {
  it('finds accounts by username and display name, prefix before likeness', async () => {
    const word = uniqueWord();
    const byName = await createAccount(word);
    const byDisplay = await named('other', `${word.toUpperCase()} Smith`);
    const alike = await named('alike', `Mr ${word.slice(0, -1)}x`);
    const reader = await createAccount('reader');
    const found = await usernames(reader, word);
    expect(found.slice(0, 2)).toEqual([byName.username, byDisplay.username]);
    expect(found).toContain(alike.username);
    expect((await rpc(anon, 'search', { p_q: word, p_type: 'users' })).items[0]).toMatchObject({
      username: byName.username,
      viewer: null,
    });
  });

  it('finds usernames starting with the text shortest first, and at most 200 of them however many match', async () => {
    const word = uniqueWord();
    // 250 confirmed accounts <word>0 … <word>249, written into Auth's table as a bulk import would.
    await asRoot`
      insert into auth.users (instance_id, id, aud, role, encrypted_password, email, email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
      select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', ${importedPasswordHash},
        ${word} || n || '@example.test', now(), '{"provider": "email", "providers": ["email"]}',
        jsonb_build_object('username', ${word} || n), now(), now()
      from generate_series(0, 249) n`;
    const reader = await createAccount('reader');
    const found: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { username: string }[]; next_cursor: string | null } = await rpc(reader, 'search', {
        p_q: word,
        p_type: 'users',
        p_limit: 100,
        ...(cursor ? { p_cursor: cursor } : {}),
      });
      found.push(...page.items.map((user) => user.username));
      cursor = page.next_cursor;
    } while (cursor);
    const named = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${word}${from + i}`);
    // The ten one-digit names first, then the two-digit ones; of the three-digit ones, the first hundred in order.
    expect(found.slice(0, 10).sort()).toEqual(named(0, 9).sort());
    expect(found.slice(10, 100).sort()).toEqual(named(10, 99).sort());
    expect(found.slice(100).sort()).toEqual(named(100, 199).sort());
  });

  it('finds posts holding every word, whatever the case, best ranked first', async () => {
    const [word, other] = [uniqueWord(), uniqueWord()];
    const author = await createAccount('author');
    await rpc(author, 'create_post', { p_body: `${word} once, then ${other}` });
    await rpc(author, 'create_post', { p_body: `${word} ${word} ${word} ${other}, ${other}` });
    await rpc(author, 'create_post', { p_body: `only ${word}` });
    expect(await postBodies(author, `${word.toUpperCase()} ${other}`)).toEqual([
      `${word} ${word} ${word} ${other}, ${other}`,
      `${word} once, then ${other}`,
    ]);
  });

  it('shows only what the caller may see: privacy, private accounts, blocks either way, bans', async () => {
    const word = uniqueWord();
    const author = await createAccount(`${word}a`);
    const shy = await createAccount(`${word}s`, { isPrivate: true });
    const blocker = await createAccount(`${word}b`);
    const offender = await createAccount(`${word}o`);
    const friend = await createAccount('friend');
    const reader = await createAccount('reader');
    await rpc(author, 'set_close_friend', { p_username: friend.username, p_close: true });
    await rpc(author, 'create_post', { p_body: `${word} public` });
    await rpc(author, 'create_post', { p_body: `${word} close`, p_privacy: 'close_friends' });
    await rpc(author, 'create_post', { p_body: `${word} private`, p_privacy: 'private' });
    await rpc(shy, 'create_post', { p_body: `${word} shy` });
    await rpc(blocker, 'create_post', { p_body: `${word} blocker` });
    await rpc(offender, 'create_post', { p_body: `${word} offender` });
    await rpc(blocker, 'block', { p_username: reader.username });
    await banDirectly(offender);

    expect((await postBodies(reader, word)).sort()).toEqual([`${word} public`]);
    expect((await postBodies(friend, word)).sort()).toEqual([`${word} blocker`, `${word} close`, `${word} public`]);
    expect((await postBodies(author, word)).sort()).toEqual([
      `${word} blocker`,
      `${word} close`,
      `${word} private`,
      `${word} public`,
    ]);
    expect((await usernames(reader, word)).sort()).toEqual([author.username, shy.username].sort());
    // The reader blocks back: the author is gone both ways.
    await rpc(author, 'block', { p_username: reader.username });
    expect(await usernames(reader, word)).toEqual([shy.username]);
  });

  it('a flood of 10,100 private and close-friends posts others may not see hides nothing', async () => {
    const word = uniqueWord();
    const visible = await createAccount('visible');
    await rpc(visible, 'create_post', { p_body: `an older public post about ${word}` });
    // 10,100 newer "only me" and close-friends posts with the word, written as a bulk import would (faster than
    // through the API); the flooder counts nobody a close friend.
    const flooder = await createAccount('flooder');
    await asRoot`
      insert into public.posts (author_id, body, privacy)
      select ${flooder.id}, case when n % 2 = 0 then 'only me ' else 'close ' end || ${word} || ' ' || n,
        case when n % 2 = 0 then 'private' else 'close_friends' end::public.post_privacy
      from generate_series(1, 10100) n`;
    const reader = await createAccount('reader');
    expect(await postBodies(reader, word)).toEqual([`an older public post about ${word}`]);
    expect(await postBodies(anon, word)).toEqual([`an older public post about ${word}`]);
    // The flooder still finds their own, 1,000 of them at most (the newest), and a close friend the flooder's
    // close-friends posts.
    const own = await rpc(flooder, 'search', { p_q: word, p_type: 'posts', p_limit: 100 });
    expect(own.items).toHaveLength(100);
    expect(
      own.items.every((post: { body: string }) => post.body.startsWith('only me') || post.body.startsWith('close')),
    ).toBe(true);
    await rpc(flooder, 'set_close_friend', { p_username: reader.username, p_close: true });
    const befriended = await rpc(reader, 'search', { p_q: word, p_type: 'posts', p_limit: 100 });
    expect(befriended.items).toHaveLength(100);
    expect(befriended.items.every((post: { body: string }) => post.body.startsWith('close'))).toBe(true);
  }, 120_000);

  it(
    'more than 2,000 newer public posts hidden from the searcher by their account may hide older matches; a follower finds them',
    async () => {
      const word = uniqueWord();
      const visible = await createAccount('visible');
      await rpc(visible, 'create_post', { p_body: `an older public post about ${word}` });
      // A private account's 2,100 newer public posts, 100 to an instant: the searcher does not follow it.
      const hidden = await createAccount('hidden', { isPrivate: true });
      for (let i = 0; i < 21; i++) {
        await asRoot`
        insert into public.posts (author_id, body) select ${hidden.id}, 'public ' || ${word} || ' ' || n from generate_series(1, 100) n`;
      }
      const reader = await createAccount('reader');
      // Past the 2,000 newest public matches read, the older visible one is not found: the documented limit.
      expect(await postBodies(reader, word)).toEqual([]);
      // A follower of that account sees its posts, and finds them.
      await rpc(reader, 'follow', { p_username: hidden.username });
      await rpc(hidden, 'respond_follow_request', { p_username: reader.username, p_accept: true });
      expect((await rpc(reader, 'search', { p_q: word, p_type: 'posts', p_limit: 5 })).items).toHaveLength(5);
    },
    120_000,
  );

  it('finds the same newest matches for a rare word (the index, in time order) as for a common one (the walk by time), batch after batch', async () => {
    const [rare, common] = [uniqueWord(), uniqueWord()];
    const author = await createAccount('author');
    // Enough posts of the common word alone for the statistics to count it among the most common words (a
    // twentieth of all posts), then five posts of one instant (one statement: one now()) holding both words.
    const [{ total }] = await asRoot`select count(*)::integer as total from public.posts`;
    await asRoot`
      insert into public.posts (author_id, body)
      select ${author.id}, ${common} || ' filler' from generate_series(1, ${Math.ceil(total / 20)}) n`;
    await asRoot`
      insert into public.posts (author_id, body)
      select ${author.id}, ${rare} || ' ' || ${common} || ' ' || n from generate_series(1, 5) n`;
    await asRoot`analyze public.posts`;
    const share = async (q: string) => (await asRoot`select private.posts_share_with_words(${q}) as share`)[0].share;
    expect(await share(rare)).toBeLessThan(0.01);
    expect(await share(common)).toBeGreaterThanOrEqual(0.01);
    expect(await share(`${rare} ${common}`)).toBeLessThan(0.01);

    const [{ ids: instant }] = await asRoot`
      select array(select id from public.posts where body like ${
      rare + ' %'
    } order by created_at desc, id desc) as ids`;
    // Batches of two: the five posts of one instant come once each, in (created_at, id) order, either way.
    const batched = async (q: string, batches: number) => {
      const found: string[] = [];
      let before = { at: 'infinity', id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' };
      for (let i = 0; i < batches; i++) {
        const batch =
          await asRoot`select id, created_at::text as at from private.post_matches(${q}, ${before.at}::text::timestamptz, ${before.id}, 2)`;
        found.push(...batch.map((row) => row.id));
        if (batch.length < 2) break;
        before = { at: batch[1].at, id: batch[1].id };
      }
      return found;
    };
    expect(await batched(rare, 10)).toEqual(instant);
    expect((await batched(common, 3)).slice(0, 5)).toEqual(instant);
    const reader = await createAccount('reader');
    expect(await postBodies(reader, rare)).toHaveLength(5);
    expect((await rpc(reader, 'search', { p_q: common, p_type: 'posts', p_limit: 100 })).items)
      .toHaveLength(Math.min(100, Math.ceil(total / 20) + 5));
  });

  it('look-alike accounts never confirmed, or banned, do not fill the bound of an account search', async () => {
    const word = uniqueWord();
    const target = await createAccount('target');
    const name = `${word}zzz`;
    await asRoot`update public.profiles set username = ${name} where id = ${target.id}`;
    // 250 accounts named like it that never confirmed their e-mail, sorted before it (the same length).
    await asRoot`
      insert into auth.users (instance_id, id, aud, role, encrypted_password, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
      select '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', ${importedPasswordHash},
        ${word} || n || '@example.test', '{"provider": "email", "providers": ["email"]}',
        jsonb_build_object('username', ${word} || lpad(n::text, 3, '0')), now(), now()
      from generate_series(0, 249) n`;
    const reader = await createAccount('reader');
    expect(await usernames(reader, word)).toContain(name);
    const banned = await createAccount(`${word}b`);
    await banDirectly(banned);
    expect(await usernames(reader, word)).not.toContain(banned.username);
  });

  it('searches the text literally: %, _, regex characters, quotes and query operators are plain characters', async () => {
    const percent = await named('percent', '%% percent');
    const underscore = await named('underscore', '__ underscore');
    const regex = await named('regex', '(.*) regex');
    const quote = await named('quote', "O'Brien \\ back");
    const reader = await createAccount('reader');
    expect(await usernames(reader, '%%')).toEqual([percent.username]);
    expect(await usernames(reader, '__')).toEqual([underscore.username]);
    expect(await usernames(reader, '(.*)')).toEqual([regex.username]);
    expect(await usernames(reader, "o'brien \\")).toEqual([quote.username]);

    const word = uniqueWord();
    await rpc(reader, 'create_post', { p_body: `${word}: 100% sure it's fine` });
    for (const q of [`${word} & !sure`, `${word}:*`, `'${word}' | fine`, `${word} (it's)`]) {
      expect([q, await postBodies(reader, q)]).toEqual([q, [`${word}: 100% sure it's fine`]]);
    }
    expect(await postBodies(reader, '%%')).toEqual([]);
  });

  it('pages by (rank, id) without gaps or repeats', async () => {
    const word = uniqueWord();
    const author = await createAccount('author');
    for (let i = 1; i <= 5; i++) await rpc(author, 'create_post', { p_body: `${word} ${'again '.repeat(i)}` });
    const all = await postBodies(author, word);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { body: string }[]; next_cursor: string | null } = await rpc(author, 'search', {
        p_q: word,
        p_type: 'posts',
        p_limit: 2,
        ...(cursor ? { p_cursor: cursor } : {}),
      });
      seen.push(...page.items.map((post) => post.body));
      cursor = page.next_cursor;
    } while (cursor);
    expect(all).toHaveLength(5);
    expect(seen).toEqual(all);
  });

  it('refuses a text too short or too long, an unknown type and a bad cursor', async () => {
    const reader = await createAccount('reader');
    expect(await errorOf(rpc(reader, 'search', { p_q: ' a ', p_type: 'users' }))).toMatchObject({
      code: 'PT400',
      hint: 'search_too_short',
    });
    expect(await errorOf(rpc(reader, 'search', { p_q: 'a'.repeat(101), p_type: 'users' }))).toMatchObject({
      code: 'PT400',
      hint: 'search_too_long',
    });
    expect(await errorOf(rpc(reader, 'search', { p_q: 'ann', p_type: 'comments' }))).toMatchObject({
      code: 'PT400',
      hint: 'invalid_search_type',
    });
    expect(await errorOf(rpc(reader, 'search', { p_q: 'ann', p_type: 'users', p_cursor: 'x' }))).toMatchObject({
      code: 'PT400',
      hint: 'invalid_cursor',
    });
  });
});

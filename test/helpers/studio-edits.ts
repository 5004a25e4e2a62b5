// The table editor's and the CSV import's actions of the catalogue (test/helpers/studio-actions.ts): for each table
// an admin opens, its insert, the edit of each column a rule guards, its delete and its truncate, as pg-meta's query
// builders write them (test/helpers/studio.ts tableEditor), run as `postgres`.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { banDirectly } from './accounts.ts';
import { asRoot, rpc } from './db.ts';
import { api } from './http.ts';
import { corrected, type Expected, kept, refused, sources, type StudioAction } from './studio-action-kinds.ts';
import { brokenAround, postSeen, profileSeen, type Scene } from './studio-scene.ts';
import { tableEditor } from './studio.ts';

type Row = Record<string, unknown>;
type Then = StudioAction['then'];

/** Each table's row of the scene, by its primary key. */
const keyOf: Record<string, (s: Scene) => Row> = {
  profiles: (s) => ({ id: s.author.id }),
  posts: (s) => ({ id: s.post }),
  post_likes: (s) => ({ post_id: s.post, user_id: s.fan.id }),
  comments: (s) => ({ id: s.comment }),
  comment_likes: (s) => ({ comment_id: s.comment, user_id: s.author.id }),
  follows: (s) => ({ follower_id: s.fan.id, followee_id: s.author.id }),
  close_friends: (s) => ({ owner_id: s.author.id, friend_id: s.fan.id }),
  blocks: (s) => ({ blocker_id: s.blocker.id, blocked_id: s.fan.id }),
  mutes: (s) => ({ muter_id: s.author.id, muted_id: s.other.id }),
  reports: (s) => ({ id: s.report }),
  notifications: (s) => ({ id: s.notice }),
  post_mentions: (s) => ({ post_id: s.post, user_id: s.other.id }),
  comment_mentions: (s) => ({ comment_id: s.comment, user_id: s.other.id }),
};

/** A second post (or comment) of the author's, for moves. */
const extraPosts = new WeakMap<Scene, string>();
const secondPost = async (s: Scene) => {
  extraPosts.set(s, (await rpc(s.author, 'create_post', { p_body: 'another day' })).id);
};
const second = (s: Scene) => extraPosts.get(s)!;

function insert(
  table: string,
  what: string,
  row: (s: Scene) => Row,
  expected: Expected,
  then?: Then,
  prepare?: StudioAction['prepare'],
): StudioAction {
  return {
    name: `table editor: insert ${table} ${what}`.trim(),
    door: 'table-editor',
    mirrors: sources.insertRow,
    expected,
    prepare,
    send: (s) => tableEditor.insert(table, row(s)),
    then,
  };
}

function update(
  table: string,
  column: string,
  value: (s: Scene) => unknown,
  expected: Expected,
  then?: Then,
  options: { what?: string; prepare?: StudioAction['prepare']; key?: (s: Scene) => Row } = {},
): StudioAction {
  return {
    name: `table editor: update ${table}.${column}${options.what ? ` ${options.what}` : ''}`,
    door: 'table-editor',
    mirrors: sources.updateRow,
    expected,
    prepare: options.prepare,
    send: (s) => tableEditor.update(table, { [column]: value(s) }, (options.key ?? keyOf[table])(s)),
    then,
  };
}

function remove(
  table: string,
  expected: Expected,
  then?: Then,
  options: { what?: string; key?: (s: Scene) => Row; prepare?: StudioAction['prepare'] } = {},
): StudioAction {
  return {
    name: `table editor: delete ${table}${options.what ? ` ${options.what}` : ''}`,
    door: 'table-editor',
    mirrors: sources.deleteRow,
    expected,
    prepare: options.prepare,
    send: (s) =>
      tableEditor.delete(
        table,
        Object.fromEntries(
          Object.entries((options.key ?? keyOf[table])(s)).map(([column, value]) => [column, [value]]),
        ),
      ),
    then,
  };
}

function truncate(table: string, expected: Expected): StudioAction {
  return {
    name: `table editor: truncate ${table}`,
    door: 'table-editor',
    mirrors: sources.truncate,
    expected,
    send: () => tableEditor.truncate(table),
  };
}

function csv(
  table: string,
  what: string,
  rows: (s: Scene) => Row[],
  expected: Expected,
  then?: Then,
  prepare?: StudioAction['prepare'],
): StudioAction {
  return {
    name: `csv import: ${table} ${what}`,
    door: 'csv-import',
    mirrors: sources.csvImport,
    expected,
    prepare,
    send: (s) => tableEditor.insertMany(table, rows(s)),
    then,
  };
}

const past = '2020-01-01T00:00:00.000Z';
const counterRefused = refused('counter_is_derived');
const moveRefused = refused('row_cannot_move');
const derived = refused('written_by_database');
const banOther = (s: Scene) => banDirectly(s.other);
const makeOtherPrivate = async (s: Scene) => {
  await asRoot`update public.profiles set is_private = true where id = ${s.other.id}`;
};
const requestOther = async (s: Scene) => {
  await makeOtherPrivate(s);
  await rpc(s.fan, 'follow', { p_username: s.other.username });
};
/** The integrity report finds `problem` about the scene, and its repair clears it. */
const reportedAndRepaired = (problem: string): Then => async (s) => {
  const found = await asRoot`select repair from moderation.integrity_report() where problem = ${problem}
    and element_id::text = any(${[s.author.id, s.fan.id, s.other.id, s.post, s.comment]})`;
  expect(found.length).toBeGreaterThan(0);
  await asRoot.unsafe(found[0].repair);
  expect(await brokenAround(s)).toEqual([]);
};

/** An edit of when a row was made, which keeps the recorded date (private.keep_created_at). */
const recordedDateKept = (table: string): StudioAction =>
  update(table, 'created_at', () => past, corrected('kept as it was'), async (s) => {
    const where = Object.entries(keyOf[table](s)).map(([column, value]) => `${column} = '${value}'`).join(' and ');
    const [row] = await asRoot.unsafe(`select created_at from public.${table} where ${where}`);
    expect(new Date(row.created_at).getFullYear()).toBeGreaterThan(2020);
  });

const profiles: StudioAction[] = [
  insert(
    'profiles',
    'without an Auth account',
    () => ({ id: randomUUID(), username: 'nobodyhere' }),
    refused('user_not_found'),
  ),
  update('profiles', 'username', (s) => `${s.author.username.slice(0, 24)}_new`, kept, async (s, _b, after) => {
    expect(after.author!.username).toBe(`${s.author.username.slice(0, 24)}_new`);
    expect((await api('GET', `/${s.author.username}`)).status).toBe(404); // the old name opens nothing
  }),
  update('profiles', 'username', () => 'No Spaces!', refused('invalid_username'), undefined, {
    what: 'the format refuses',
  }),
  update('profiles', 'username', (s) => s.other.username, refused('username_taken'), undefined, {
    what: "another account's",
  }),
  update('profiles', 'username', () => 'hooks', refused('username_reserved'), undefined, { what: 'a reserved one' }),
  update('profiles', 'display_name', () => 'Shown Name', kept),
  update('profiles', 'bio', () => 'written in Studio', kept),
  update('profiles', 'avatar_url', (s) => `${s.author.id}/avatar.png`, kept),
  update('profiles', 'avatar_url', (s) => `${s.other.id}/avatar.png`, refused('23514'), undefined, {
    what: "in another account's folder",
  }),
  update('profiles', 'time_zone', () => 'Europe/Paris', kept),
  update('profiles', 'time_zone', () => 'Mars/Olympus', refused('invalid_time_zone'), undefined, { what: 'unknown' }),
  update('profiles', 'is_private', () => true, kept, async (s) => {
    expect(await postSeen(s.post, s.other)).toBeNull();
    expect(await postSeen(s.post, s.fan)).not.toBeNull(); // a follower still reads it
  }),
  update('profiles', 'is_private', () => false, kept, async (s) => {
    expect((await profileSeen(s.other))!.followers_count).toBe(1); // the pending request was accepted
  }, { what: 'to public, a request pending', prepare: requestOther, key: (s) => ({ id: s.other.id }) }),
  update('profiles', 'followers_count', () => 1000, counterRefused),
  update('profiles', 'following_count', () => 1000, counterRefused),
  update('profiles', 'posts_count', () => 1000, counterRefused),
  update('profiles', 'confirmed_at', () => null, refused('confirmed_by_auth')),
  update('profiles', 'banned_at', () => new Date().toISOString(), refused('ban_needs_reason')),
  recordedDateKept('profiles'),
  remove('profiles', kept, async (s, _b, after) => {
    expect(after.other).toBeNull();
    expect(await asRoot`select id from auth.users where id = ${s.other.id}`).toEqual([]);
  }, { key: (s) => ({ id: s.other.id }) }),
];

const posts: StudioAction[] = [
  insert(
    'posts',
    'with counters',
    (s) => ({ author_id: s.author.id, body: 'made in Studio', likes_count: 7, comments_count: 3 }),
    corrected('counters start at zero'),
    async (s, before, after, result) => {
      const [row] = result as Row[];
      expect(await postSeen(String(row.id), s.author)).toMatchObject({ likes_count: 0, comments_count: 0 });
      expect(after.author!.posts_count).toBe(before.author!.posts_count + 1);
    },
  ),
  insert(
    'posts',
    'for an unknown author',
    () => ({ author_id: randomUUID(), body: 'lost' }),
    refused('user_not_found'),
  ),
  insert('posts', 'without a body', (s) => ({ author_id: s.author.id }), refused('missing_value')),
  update('posts', 'body', () => 'edited in Studio', kept, (_s, _b, after) => {
    expect(after.post).toMatchObject({ body: 'edited in Studio' });
    expect(after.post!.edited_at).not.toBeNull();
  }),
  update('posts', 'emotion', () => 42, kept),
  update('posts', 'privacy', () => 'close_friends', kept, async (s) => {
    expect(await postSeen(s.post, s.other)).toBeNull();
    expect(await postSeen(s.post, s.fan)).not.toBeNull(); // a close friend
  }),
  update('posts', 'likes_count', () => 0, counterRefused),
  update('posts', 'comments_count', () => 0, counterRefused),
  update('posts', 'edited_at', () => past, corrected('kept as it was'), (_s, before, after) => {
    expect(after.post!.edited_at).toEqual(before.post!.edited_at);
  }),
  recordedDateKept('posts'),
  update('posts', 'day', () => '2020-01-01', corrected('kept as it was')),
  update('posts', 'author_id', (s) => s.other.id, corrected('kept as it was')),
  update('posts', 'banned_at', () => new Date().toISOString(), refused('ban_needs_reason')),
  update('posts', 'body', () => 'rewritten', refused('post_banned'), undefined, {
    what: 'of a banned post',
    prepare: async (s) => {
      await asRoot`select moderation.ban_post(${s.post}, 'spam')`;
    },
  }),
  remove('posts', kept, (_s, before, after) => {
    expect(after.post).toBeNull();
    expect(after.author!.posts_count).toBe(before.author!.posts_count - 1);
    expect(after.feed).toEqual([]);
  }),
  truncate('posts', refused('0A000')),
];

const likes: StudioAction[] = [
  insert('post_likes', '', (s) => ({ post_id: s.post, user_id: s.other.id }), kept, (_s, before, after) => {
    expect(after.post!.likes_count).toBe(before.post!.likes_count + 1);
    expect(after.notices).toEqual(before.notices); // the author mutes other: no notification
  }),
  insert(
    'post_likes',
    'by a banned account',
    (s) => ({ post_id: s.post, user_id: s.other.id }),
    refused('not_visible_to_writer'),
    undefined,
    banOther,
  ),
  insert('post_likes', 'twice', (s) => ({ post_id: s.post, user_id: s.fan.id }), corrected('the second is skipped')),
  insert('post_likes', 'without a user', (s) => ({ post_id: s.post }), refused('missing_value')),
  insert(
    'post_likes',
    'of an unknown post',
    (s) => ({ post_id: randomUUID(), user_id: s.fan.id }),
    refused('post_not_found'),
  ),
  update('post_likes', 'post_id', (s) => second(s), moveRefused, undefined, { prepare: secondPost }),
  update('post_likes', 'user_id', (s) => s.other.id, moveRefused),
  recordedDateKept('post_likes'),
  remove('post_likes', kept, (_s, before, after) => {
    expect(after.post!.likes_count).toBe(before.post!.likes_count - 1);
  }),
  truncate('post_likes', refused('truncate_refused')),
  insert('comment_likes', '', (s) => ({ comment_id: s.comment, user_id: s.other.id }), kept),
  insert(
    'comment_likes',
    'across a block',
    (s) => ({ comment_id: s.comment, user_id: s.blocker.id }),
    refused('not_visible_to_writer'),
  ),
  insert(
    'comment_likes',
    'of an unknown comment',
    (s) => ({ comment_id: randomUUID(), user_id: s.fan.id }),
    refused('comment_not_found'),
  ),
  update('comment_likes', 'comment_id', (s) => second(s), moveRefused, undefined, {
    prepare: async (s) => {
      extraPosts.set(s, (await rpc(s.author, 'comment_post', { p_post_id: s.post, p_body: 'mine' })).id);
    },
  }),
  update('comment_likes', 'user_id', (s) => s.other.id, moveRefused),
  recordedDateKept('comment_likes'),
  remove('comment_likes', kept),
  truncate('comment_likes', refused('truncate_refused')),
];

const comments: StudioAction[] = [
  insert(
    'comments',
    '',
    (s) => ({ post_id: s.post, author_id: s.other.id, body: 'from Studio' }),
    kept,
    (_s, before, after) => {
      expect(after.post!.comments_count).toBe(before.post!.comments_count + 1);
    },
  ),
  insert(
    'comments',
    'with counters',
    (s) => ({ post_id: s.post, author_id: s.other.id, body: 'counted', likes_count: 5, replies_count: 2 }),
    corrected('counters start at zero'),
    (_s, _b, _a, result) => {
      expect((result as Row[])[0]).toMatchObject({ likes_count: 0, replies_count: 0 });
    },
  ),
  insert(
    'comments',
    'by a banned account',
    (s) => ({ post_id: s.post, author_id: s.other.id, body: 'hidden' }),
    refused('not_visible_to_writer'),
    undefined,
    banOther,
  ),
  insert(
    'comments',
    'on an unknown post',
    (s) => ({ post_id: randomUUID(), author_id: s.fan.id, body: 'lost' }),
    refused('post_not_found'),
  ),
  insert(
    'comments',
    'as a reply under another post',
    (s) => ({ post_id: second(s), parent_id: s.comment, author_id: s.fan.id, body: 'lost' }),
    refused('comment_not_found'),
    undefined,
    secondPost,
  ),
  insert(
    'comments',
    'as a reply without a post',
    (s) => ({ parent_id: s.comment, author_id: s.author.id, body: 'found' }),
    corrected("goes under its parent's post"),
    (s, _b, _a, result) => {
      expect((result as Row[])[0].post_id).toBe(s.post);
    },
  ),
  update('comments', 'body', () => 'rewritten', refused('comment_not_editable')),
  update('comments', 'post_id', (s) => second(s), moveRefused, undefined, { prepare: secondPost }),
  update('comments', 'author_id', (s) => s.other.id, moveRefused),
  update('comments', 'likes_count', () => 9, counterRefused),
  update('comments', 'replies_count', () => 9, counterRefused),
  recordedDateKept('comments'),
  remove('comments', kept, (_s, before, after) => {
    expect(after.post!.comments_count).toBe(before.post!.comments_count - 1);
  }),
  truncate('comments', refused('0A000')),
];

const relations: StudioAction[] = [
  insert('follows', '', (s) => ({ follower_id: s.other.id, followee_id: s.author.id }), kept, (_s, before, after) => {
    expect(after.author!.followers_count).toBe(before.author!.followers_count + 1);
  }),
  insert(
    'follows',
    'across a block',
    (s) => ({ follower_id: s.fan.id, followee_id: s.blocker.id }),
    refused('across_block'),
  ),
  insert(
    'follows',
    'of oneself',
    (s) => ({ follower_id: s.fan.id, followee_id: s.fan.id }),
    refused('cannot_follow_self'),
  ),
  insert(
    'follows',
    'of an unknown account',
    (s) => ({ follower_id: s.fan.id, followee_id: randomUUID() }),
    refused('user_not_found'),
  ),
  insert(
    'follows',
    'of a private account',
    (s) => ({ follower_id: s.fan.id, followee_id: s.other.id, status: 'accepted' }),
    corrected('a pending request'),
    (_s, before, after) => {
      expect(after.other!.followers_count).toBe(before.other!.followers_count);
    },
    makeOtherPrivate,
  ),
  update('follows', 'status', () => 'accepted', kept, (_s, before, after) => {
    expect(after.other!.followers_count).toBe(before.other!.followers_count + 1);
  }, { what: 'of a request', prepare: requestOther, key: (s) => ({ follower_id: s.fan.id, followee_id: s.other.id }) }),
  update('follows', 'status', () => 'pending', refused('invalid_transition'), undefined, { what: 'back to pending' }),
  update('follows', 'followee_id', (s) => s.other.id, moveRefused),
  update('follows', 'follower_id', (s) => s.other.id, moveRefused),
  remove('follows', kept, (_s, before, after) => {
    expect(after.author!.followers_count).toBe(before.author!.followers_count - 1);
    expect(after.feed).toEqual([]);
  }),
  truncate('follows', refused('0A000')),
  insert('close_friends', '', (s) => ({ owner_id: s.author.id, friend_id: s.other.id }), kept),
  insert(
    'close_friends',
    'across a block',
    (s) => ({ owner_id: s.blocker.id, friend_id: s.fan.id }),
    refused('across_block'),
  ),
  insert(
    'close_friends',
    'of oneself',
    (s) => ({ owner_id: s.fan.id, friend_id: s.fan.id }),
    refused('cannot_befriend_self'),
  ),
  update('close_friends', 'friend_id', (s) => s.blocker.id, moveRefused),
  recordedDateKept('close_friends'),
  remove('close_friends', kept),
  insert('blocks', '', (s) => ({ blocker_id: s.author.id, blocked_id: s.fan.id }), kept, (_s, before, after) => {
    expect(after.fanSeesAuthor).toBe(false);
    expect(after.author!.followers_count).toBe(before.author!.followers_count - 1);
  }),
  insert('blocks', 'of oneself', (s) => ({ blocker_id: s.fan.id, blocked_id: s.fan.id }), refused('cannot_block_self')),
  update('blocks', 'blocked_id', (s) => s.author.id, moveRefused),
  recordedDateKept('blocks'),
  remove('blocks', kept, (_s, _b, after) => {
    expect(after.fanSeesBlocker).toBe(true);
  }),
  insert('mutes', '', (s) => ({ muter_id: s.author.id, muted_id: s.fan.id }), kept),
  insert('mutes', 'of oneself', (s) => ({ muter_id: s.fan.id, muted_id: s.fan.id }), refused('cannot_mute_self')),
  update('mutes', 'notifications_only', () => true, kept),
  update('mutes', 'expires_at', () => new Date(Date.now() + 3_600_000).toISOString(), kept),
  update('mutes', 'muted_id', (s) => s.fan.id, moveRefused),
  recordedDateKept('mutes'),
  remove('mutes', kept),
];

const reportsAndRecords: StudioAction[] = [
  insert(
    'reports',
    '',
    (s) => ({ reporter_id: s.other.id, target_type: 'user', target_user_id: s.author.id, reason: 'spam' }),
    kept,
    async (s) => {
      expect(await asRoot`select reports_count from private.reported_elements where target_id = ${s.author.id}`)
        .toEqual([{ reports_count: 1 }]);
    },
  ),
  insert(
    'reports',
    'of oneself',
    (s) => ({ reporter_id: s.fan.id, target_type: 'user', target_user_id: s.fan.id, reason: 'spam' }),
    refused('invalid_reason'),
  ),
  insert(
    'reports',
    'whose target does not match its type',
    (s) => ({ reporter_id: s.fan.id, target_type: 'post', target_user_id: s.author.id, reason: 'spam' }),
    refused('invalid_value'),
  ),
  insert(
    'reports',
    'without a target type',
    (s) => ({ reporter_id: s.fan.id, target_user_id: s.author.id, reason: 'spam' }),
    refused('missing_value'),
  ),
  update('reports', 'target_user_id', (s) => s.author.id, moveRefused),
  update('reports', 'reason', () => 'rewritten', kept),
  recordedDateKept('reports'),
  remove('reports', kept, async (s) => {
    expect(await asRoot`select 1 from private.reported_elements where target_id = ${s.other.id}`).toEqual([]);
  }),
  truncate('reports', refused('truncate_refused')),
  insert(
    'notifications',
    '',
    (s) => ({ recipient_id: s.author.id, actor_id: s.other.id, kind: 'post_like', post_id: s.post }),
    derived,
  ),
  ...['actor_id', 'recipient_id'].map((column) => update('notifications', column, (s) => s.other.id, derived)),
  update('notifications', 'kind', () => 'follow', derived),
  update('notifications', 'post_id', (s) => second(s), derived, undefined, { prepare: secondPost }),
  update('notifications', 'comment_id', (s) => s.comment, derived),
  update('notifications', 'created_at', () => past, derived),
  update('notifications', 'read_at', () => new Date().toISOString(), kept),
  remove('notifications', kept, (_s, before, after) => {
    expect(after.notices!.length).toBe(before.notices!.length - 1);
  }),
  insert('post_mentions', '', (s) => ({ post_id: s.post, user_id: s.fan.id }), derived),
  update('post_mentions', 'user_id', (s) => s.fan.id, derived),
  remove('post_mentions', kept),
  insert('comment_mentions', '', (s) => ({ comment_id: s.comment, user_id: s.author.id }), derived),
  update('comment_mentions', 'user_id', (s) => s.author.id, derived),
  remove('comment_mentions', kept),
];

/** The ban of `other`, whose entry the history edits below aim at. */
const otherBanned = (s: Scene) => ({ element_id: s.other.id });
const history: StudioAction[] = [
  insert(
    'ban_history',
    '',
    (s) => ({ element_type: 'user', element_id: s.other.id, action: 'ban', reason: 'back-dated', created_at: past }),
    refused('ban_history_is_append_only'),
  ),
  update('ban_history', 'reason', () => 'rewritten', refused('ban_history_is_append_only'), undefined, {
    prepare: banOther,
    key: otherBanned,
  }),
  remove('ban_history', refused('ban_history_is_append_only'), undefined, { prepare: banOther, key: otherBanned }),
];

const privateTables: StudioAction[] = [
  update('private.reported_elements', 'reports_count', () => 5, kept, reportedAndRepaired('reports summary'), {
    key: (s) => ({ target_id: s.other.id }),
  }),
  remove('private.reported_elements', kept, reportedAndRepaired('reports summary'), {
    key: (s) => ({ target_id: s.other.id }),
  }),
  insert('private.pending_counts', '', (s) => ({ counter: 'post_likes', target_id: s.post, delta: 1 }), counterRefused),
  remove('private.feed_sources', kept, reportedAndRepaired('feed source'), {
    key: (s) => ({ follower_id: s.fan.id, followee_id: s.author.id }),
  }),
  update('private.trusted_writers', 'user_id', (s) => s.other.id, refused('write_limit_needs_reason'), undefined, {
    prepare: async (s) => {
      await asRoot`select moderation.trust_writer(${s.fan.username}, 'a bot of ours')`;
    },
    key: (s) => ({ user_id: s.fan.id }),
  }),
  insert('private.trusted_writers', '', (s) => ({ user_id: s.fan.id }), refused('write_limit_needs_reason')),
  remove('private.trusted_writers', refused('write_limit_needs_reason'), undefined, {
    prepare: async (s) => {
      await asRoot`select moderation.trust_writer(${s.fan.username}, 'a bot of ours')`;
    },
    key: (s) => ({ user_id: s.fan.id }),
  }),
  insert(
    'private.write_counts',
    '',
    (s) => ({ user_id: s.fan.id, family: 'posts', window_start: new Date().toISOString(), writes: 1 }),
    refused('write_limit_needs_reason'),
  ),
  update('private.write_counts', 'writes', () => 0, refused('write_limit_needs_reason'), undefined, {
    key: (s) => ({ user_id: s.fan.id }),
  }),
  remove('private.write_counts', refused('write_limit_needs_reason'), undefined, {
    key: (s) => ({ user_id: s.fan.id }),
  }),
  insert(
    'private.write_limit_history',
    '',
    (s) => ({ user_id: s.fan.id, action: 'trust', reason: 'forged' }),
    refused('history_is_append_only'),
  ),
  update('private.write_limit_history', 'reason', () => 'rewritten', refused('history_is_append_only'), undefined, {
    prepare: async (s) => {
      await asRoot`select moderation.trust_writer(${s.fan.username}, 'a bot of ours')`;
    },
    key: (s) => ({ user_id: s.fan.id }),
  }),
  update('private.write_limits', 'why', () => 'explained in Studio', kept, undefined, {
    key: () => ({ family: 'posts' }),
  }),
  insert(
    'private.reserved_usernames',
    'an account has',
    (s) => ({ name: s.other.username.toUpperCase() }),
    refused('username_taken'),
  ),
  insert(
    'private.reserved_usernames',
    'free, in capitals',
    () => ({ name: `Free${Date.now().toString(36)}` }),
    corrected('kept in lower case'),
    (_s, _b, _a, result) => {
      expect(String((result as Row[])[0].name)).toMatch(/^free[a-z0-9]+$/);
    },
  ),
  insert('private.admins', '', (s) => ({ user_id: s.other.id }), kept, async (s) => {
    expect((await api('GET', '/admin/reports?type=user', { token: s.other.accessToken })).status).toBe(200);
  }),
  remove('private.admins', kept, async (s) => {
    expect((await api('GET', '/admin/reports?type=user', { token: s.other.accessToken })).status).toBe(403);
  }, {
    prepare: async (s) => {
      await asRoot`insert into private.admins (user_id) values (${s.other.id})`;
    },
    key: (s) => ({ user_id: s.other.id }),
  }),
  insert(
    'private.banned_emails',
    '',
    () => ({ email: `refused.${Date.now().toString(36)}@example.test` }),
    kept,
    async (_s, _b, _a, result) => {
      const email = String((result as Row[])[0].email);
      expect(
        (await api('POST', '/auth/register', {
          json: { email, username: `r${Date.now().toString(36)}`, password: 'correct horse battery' },
        })).status,
      ).toBeGreaterThanOrEqual(400);
    },
  ),
  remove('private.write_marks', kept, undefined, { key: (s) => ({ user_id: s.fan.id }) }),
  remove('private.post_mention_notices', kept, undefined, { key: (s) => ({ post_id: s.post }) }),
];

const authUsers: StudioAction[] = [
  update('auth.users', 'banned_until', () => '2999-01-01T00:00:00Z', kept, (_s, _b, after) => {
    expect(after.other).toBeNull(); // the product's ban
  }, { key: (s) => ({ id: s.other.id }) }),
  update('auth.users', 'email', (s) => s.fan.email.toUpperCase(), refused('email_taken'), undefined, {
    what: "another account's",
    key: (s) => ({ id: s.other.id }),
  }),
  update(
    'auth.users',
    'email',
    () => `Moved.${Date.now().toString(36)}@Example.test`,
    corrected('kept in lower case'),
    async (s) => {
      const [row] = await asRoot`select email from auth.users where id = ${s.other.id}`;
      expect(row.email).toBe(row.email.toLowerCase());
    },
    { what: 'a free one', key: (s) => ({ id: s.other.id }) },
  ),
  remove('auth.users', kept, (_s, before, after) => {
    expect(after.fan).toBeNull();
    expect(after.post!.likes_count).toBe(before.post!.likes_count - 1);
    expect(after.author!.followers_count).toBe(before.author!.followers_count - 1);
  }, { key: (s) => ({ id: s.fan.id }) }),
];

const imports: StudioAction[] = [
  csv(
    'posts',
    'with counters',
    (s) => [1, 2].map((n) => ({ author_id: s.author.id, body: `imported ${n}`, likes_count: 4 })),
    corrected('counters start at zero'),
    (_s, before, after) => {
      expect(after.author!.posts_count).toBe(before.author!.posts_count + 2);
    },
  ),
  csv(
    'post_likes',
    'one of them by a banned account',
    (s) => [{ post_id: s.post, user_id: s.blocker.id }, { post_id: s.post, user_id: s.other.id }],
    refused('not_visible_to_writer'),
    undefined,
    banOther,
  ),
  csv(
    'follows',
    '',
    (
      s,
    ) => [{ follower_id: s.other.id, followee_id: s.author.id }, {
      follower_id: s.blocker.id,
      followee_id: s.author.id,
    }],
    kept,
    (_s, before, after) => {
      expect(after.author!.followers_count).toBe(before.author!.followers_count + 2);
    },
  ),
  csv(
    'comments',
    '',
    (
      s,
    ) => [{ post_id: s.post, author_id: s.other.id, body: 'one' }, {
      post_id: s.post,
      author_id: s.author.id,
      body: 'two',
    }],
    kept,
    (_s, before, after) => {
      expect(after.post!.comments_count).toBe(before.post!.comments_count + 2);
    },
  ),
  csv('notifications', '', (s) => [{ recipient_id: s.author.id, actor_id: s.other.id, kind: 'follow' }], derived),
  csv('profiles', '', () => [{ id: randomUUID(), username: 'importedone' }], refused('user_not_found')),
  csv(
    'reports',
    'one of them of oneself',
    (
      s,
    ) => [{ reporter_id: s.other.id, target_type: 'user', target_user_id: s.author.id, reason: 'spam' }, {
      reporter_id: s.fan.id,
      target_type: 'user',
      target_user_id: s.fan.id,
      reason: 'spam',
    }],
    refused('invalid_reason'),
  ),
];

export const editorActions: StudioAction[] = [
  ...profiles,
  ...posts,
  ...likes,
  ...comments,
  ...relations,
  ...reportsAndRecords,
  ...history,
  ...privateTables,
  ...authUsers,
  ...imports,
];

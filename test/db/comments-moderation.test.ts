// Comments and replies, their deletion rights; reports, bans and the ban history of admins.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Account, createAccount, makeAdmin } from '../helpers/accounts.ts';
import { as, asRoot, errorOf, heldOpen, lockWaits, rpc } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('comments', () => {
  it('are written on visible posts, replied to, liked, listed newest first', async () => {
    const author = await createAccount('author');
    const reader = await createAccount('reader');
    const post = await rpc(author, 'create_post', { p_body: 'talk to me' });
    const first = await rpc(reader, 'comment_post', { p_post_id: post.id, p_body: 'first' });
    const second = await rpc(author, 'comment_post', { p_post_id: post.id, p_body: 'second' });
    const reply = await rpc(author, 'reply_comment', { p_comment_id: first.id, p_body: 'thanks' });
    expect(reply).toMatchObject({ parent_id: first.id, post_id: post.id });
    expect(await rpc(author, 'like_comment', { p_comment_id: first.id })).toMatchObject({
      likes_count: 1,
      replies_count: 1,
      viewer: { liked: true },
    });

    const top = await rpc(reader, 'post_comments', { p_post_id: post.id });
    expect(top.items.map((c: { id: string }) => c.id)).toEqual([second.id, first.id]);
    expect((await rpc(reader, 'comment_replies', { p_comment_id: first.id })).items.map((c: { id: string }) => c.id))
      .toEqual([reply.id]);
    expect(
      (await rpc(reader, 'comment_likes', { p_comment_id: first.id })).items.map((u: { username: string }) =>
        u.username
      ),
    ).toEqual([author.username]);
    expect((await rpc(reader, 'get_post', { p_post_id: post.id })).comments_count).toBe(3);
    expect(await errorOf(rpc(reader, 'comment_post', { p_post_id: post.id, p_body: 'x'.repeat(501) }))).toMatchObject({
      code: '23514',
    });
  });

  it("are deleted by their author, the post's author or an admin, with their replies; not by others", async () => {
    const author = await createAccount('author');
    const commenter = await createAccount('commenter');
    const bystander = await createAccount('bystander');
    const admin = await createAccount('admin');
    await makeAdmin(admin);
    const post = await rpc(author, 'create_post', { p_body: 'moderated' });
    const c1 = await rpc(commenter, 'comment_post', { p_post_id: post.id, p_body: 'one' });
    await rpc(bystander, 'reply_comment', { p_comment_id: c1.id, p_body: 'reply' });
    const c2 = await rpc(commenter, 'comment_post', { p_post_id: post.id, p_body: 'two' });
    const c3 = await rpc(commenter, 'comment_post', { p_post_id: post.id, p_body: 'three' });

    expect(await errorOf(rpc(bystander, 'delete_comment', { p_comment_id: c1.id }))).toMatchObject({ code: 'PT403' });
    expect(await rpc(commenter, 'delete_comment', { p_comment_id: c1.id })).toEqual({ deleted: true, id: c1.id });
    expect(await rpc(author, 'delete_comment', { p_comment_id: c2.id })).toMatchObject({ deleted: true });
    expect(await rpc(admin, 'delete_comment', { p_comment_id: c3.id })).toMatchObject({ deleted: true });
    expect((await rpc(author, 'get_post', { p_post_id: post.id })).comments_count).toBe(0);
  });

  it("stay deletable by the post's author after a block either way, and by their own author", async () => {
    const author = await createAccount('author');
    const blocked = await createAccount('blocked');
    const blocker = await createAccount('blocker');
    const reader = await createAccount('reader');
    const post = await rpc(author, 'create_post', { p_body: 'my wall' });
    const rude = await rpc(blocked, 'comment_post', { p_post_id: post.id, p_body: 'rude' });
    const grudge = await rpc(blocker, 'comment_post', { p_post_id: post.id, p_body: 'grudge' });
    const own = await rpc(blocker, 'comment_post', { p_post_id: post.id, p_body: 'mine' });
    await rpc(author, 'block', { p_username: blocked.username, p_block: true });
    await rpc(blocker, 'block', { p_username: author.username, p_block: true });

    // Hidden from the post's author, still shown to everyone else…
    expect(await errorOf(rpc(author, 'get_comment', { p_comment_id: rude.id }))).toMatchObject({ code: 'PT404' });
    expect((await rpc(reader, 'post_comments', { p_post_id: post.id })).items).toHaveLength(3);
    // …so the post's author can remove them; a stranger still cannot, and learns nothing more than a 403.
    expect(await errorOf(rpc(reader, 'delete_comment', { p_comment_id: rude.id }))).toMatchObject({ code: 'PT403' });
    expect(await rpc(author, 'delete_comment', { p_comment_id: rude.id })).toEqual({ deleted: true, id: rude.id });
    expect(await rpc(author, 'delete_comment', { p_comment_id: grudge.id })).toMatchObject({ deleted: true });
    // The commenter, who can no longer see the post, may still delete their own comment.
    expect(await rpc(blocker, 'delete_comment', { p_comment_id: own.id })).toMatchObject({ deleted: true });
    expect((await rpc(reader, 'post_comments', { p_post_id: post.id })).items).toEqual([]);
    expect(await errorOf(rpc(author, 'delete_comment', { p_comment_id: rude.id }))).toMatchObject({ code: 'PT404' });
  });
});

describe.skipIf(!authIsRunning)('moderation', () => {
  let admin: Account;
  let otherAdmin: Account;

  beforeAll(async () => {
    admin = await createAccount('admin');
    otherAdmin = await createAccount('admin');
    await makeAdmin(admin);
    await makeAdmin(otherAdmin);
  });

  it('admin paths refuse non-admins with 403 and anonymous callers with 401', async () => {
    const user = await createAccount('user');
    expect(await errorOf(rpc(user, 'admin_reports'))).toMatchObject({ code: 'PT403', hint: 'admin_only' });
    expect(await errorOf(rpc(user, 'admin_ban_user', { p_username: admin.username }))).toMatchObject({ code: 'PT403' });
    expect((await rpc(admin, 'admin_reports')).items).toEqual(expect.any(Array));
  });

  it('reports are grouped per element for admins and can be dismissed', async () => {
    const troll = await createAccount('troll');
    const r1 = await createAccount('reporter');
    const r2 = await createAccount('reporter');
    const post = await rpc(troll, 'create_post', { p_body: 'spam spam' });
    await rpc(r1, 'report_post', { p_post_id: post.id, p_reason: 'spam' });
    const second = await rpc(r2, 'report_post', { p_post_id: post.id, p_reason: 'also spam' });
    const page = await rpc(admin, 'admin_reports', { p_type: 'post' });
    const group = page.items.find((g: { target_id: string }) => g.target_id === post.id);
    expect(group).toMatchObject({ target_type: 'post', reports_count: 2 });
    expect(group.latest_reports.map((r: { reason: string }) => r.reason)).toEqual(['also spam', 'spam']);
    expect(await rpc(admin, 'admin_dismiss_report', { p_report_id: second.id })).toEqual({
      deleted: true,
      id: second.id,
    });
    expect(await errorOf(rpc(admin, 'admin_dismiss_report', { p_report_id: second.id }))).toMatchObject({
      code: 'PT404',
    });
    expect(await rpc(r2, 'report_post', { p_post_id: post.id, p_reason: 'still spam' })).toMatchObject({
      target_type: 'post',
    });
  });

  it('a report filed while another of the same element is dismissed is neither lost nor left out of the summary', async () => {
    const troll = await createAccount('troll');
    const first = await createAccount('reporter');
    const second = await createAccount('reporter');
    const post = await rpc(troll, 'create_post', { p_body: 'contested' });
    const dismissed = await rpc(first, 'report_post', { p_post_id: post.id, p_reason: 'first' });
    const filing = heldOpen(
      second,
      (tx) =>
        tx`insert into public.reports (target_type, target_post_id, reason) values ('post', ${post.id}, 'second')`,
    );
    await filing.ran;
    const dismissal = rpc(admin, 'admin_dismiss_report', { p_report_id: dismissed.id });
    await lockWaits(1); // the dismissal waits for the filing's transaction
    filing.release();
    await filing.done;
    await dismissal;
    const [summary] = await asRoot`select reports_count from private.reported_elements where target_id = ${post.id}`;
    expect(summary).toEqual({ reports_count: 1 });
    const [latest] = await asRoot`select e.latest_at = r.created_at as fresh from private.reported_elements e
      join public.reports r on r.target_post_id = e.target_id where e.target_id = ${post.id}`;
    expect(latest.fresh).toBe(true);
  });

  it('a report of an element whose summary is busy waits for nothing: pending, counted for admins only, folded next', async () => {
    const troll = await createAccount('troll');
    const [first, second, third] = await Promise.all([1, 2, 3].map(() => createAccount('reporter')));
    const post = await rpc(troll, 'create_post', { p_body: 'viral and vile' });
    await rpc(first, 'report_post', { p_post_id: post.id, p_reason: 'one' });
    const countShown = async () =>
      (await rpc(admin, 'admin_reports', { p_type: 'post', p_limit: 100 })).items
        .find((g: { target_id: string }) => g.target_id === post.id)?.reports_count;
    await asRoot.begin(async (holder) => {
      // Another reporter's transaction holding the summary row, as under a burst of reports.
      await holder`select 1 from private.reported_elements where target_id = ${post.id} for no key update`;
      await rpc(second, 'report_post', { p_post_id: post.id, p_reason: 'two' });
      expect(await asRoot`select counter, delta from private.pending_counts where target_id = ${post.id}`).toEqual([
        { counter: 'post_reports', delta: 1 },
      ]);
      expect(await countShown()).toBe(2);
      expect(await asRoot`select open_reports from moderation.reported_elements where target_id = ${post.id}`)
        .toEqual([{ open_reports: 2 }]);
      // Who reported what is for admins: a member (the reporter included) sees no pending report, an admin does.
      expect(await as(second, (tx) => tx`select 1 from private.pending_counts where target_id = ${post.id}`))
        .toEqual([]);
      expect(await as(admin, (tx) => tx`select delta from private.pending_counts where target_id = ${post.id}`))
        .toEqual([{ delta: 1 }]);
      // The counters' recount leaves the reports' pending changes to the reports' summary.
      await asRoot`select private.recount_counters()`;
      expect(await countShown()).toBe(2);
    });
    await rpc(third, 'report_post', { p_post_id: post.id, p_reason: 'three' });
    expect(await asRoot`select 1 from private.pending_counts where target_id = ${post.id} and delta <> 0`).toEqual([]);
    expect(
      await asRoot`select reports_count, latest_at = (select max(created_at) from public.reports
                   where target_post_id = ${post.id}) as latest from private.reported_elements where target_id = ${post.id}`,
    ).toEqual([{ reports_count: 3, latest: true }]);
  });

  it('rebuilding the summary while a report is in flight neither loses it nor counts it twice', async () => {
    const troll = await createAccount('troll');
    const reporters = await Promise.all([1, 2, 3, 4].map(() => createAccount('reporter')));
    const post = await rpc(troll, 'create_post', { p_body: 'reported while repaired' });
    const busy = (work: () => Promise<unknown>) =>
      asRoot.begin(async (holder) => {
        await holder`select 1 from private.reported_elements where target_id = ${post.id} for no key update`;
        await work();
      });
    await rpc(reporters[0], 'report_post', { p_post_id: post.id, p_reason: 'one' });
    await busy(() => rpc(reporters[1], 'report_post', { p_post_id: post.id, p_reason: 'two' }));
    await rpc(reporters[2], 'report_post', { p_post_id: post.id, p_reason: 'three' }); // folds the second
    expect(await asRoot`select delta from private.pending_counts where target_id = ${post.id}`).toEqual([{ delta: 0 }]);
    // The fourth reporter finds the summary busy and leaves its report on that row, and has not committed yet
    // when an admin rebuilds the summary.
    let fourth!: ReturnType<typeof heldOpen>;
    await busy(async () => {
      fourth = heldOpen(reporters[3], (tx) => tx`select public.report_post(${post.id}::uuid, 'four')`);
      await fourth.ran;
    });
    const rebuilt = asRoot`select private.resummarize_reports()`.execute();
    await lockWaits(1);
    fourth.release();
    await Promise.all([fourth.done, rebuilt]);
    const group = (await rpc(admin, 'admin_reports', { p_type: 'post', p_limit: 100 })).items
      .find((g: { target_id: string }) => g.target_id === post.id);
    expect(group.reports_count).toBe(4);
    expect(await asRoot`select detail from moderation.integrity_report() where element_id = ${post.id}`).toEqual([]);
  });

  it('16 accounts reporting one post at once while an admin dismisses reports of it: no report lost or counted twice', async () => {
    const troll = await createAccount('troll');
    const reporters = await Promise.all(Array.from({ length: 16 }, () => createAccount('reporter')));
    const post = await rpc(troll, 'create_post', { p_body: 'reported by everyone' });
    const early = [];
    for (const reporter of reporters.slice(0, 4)) {
      early.push(await rpc(reporter, 'report_post', { p_post_id: post.id, p_reason: 'early' }));
    }
    await Promise.all([
      ...reporters.slice(4).map((reporter) => rpc(reporter, 'report_post', { p_post_id: post.id, p_reason: 'late' })),
      ...early.map((report) => rpc(admin, 'admin_dismiss_report', { p_report_id: report.id })),
    ]);
    const group = (await rpc(admin, 'admin_reports', { p_type: 'post', p_limit: 100 })).items
      .find((g: { target_id: string }) => g.target_id === post.id);
    expect(group.reports_count).toBe(12);
    await asRoot`select private.fold_pending_counts()`;
    expect(
      await asRoot`select reports_count, latest_at = (select max(created_at) from public.reports
                   where target_post_id = ${post.id}) as latest from private.reported_elements where target_id = ${post.id}`,
    ).toEqual([{ reports_count: 12, latest: true }]);
  });

  it('reported elements page by their latest report, and the summary matches the reports after every change', async () => {
    const troll = await createAccount('troll');
    const reporter = await createAccount('reporter');
    const posts = [];
    for (const body of ['one', 'two', 'three']) {
      const post = await rpc(troll, 'create_post', { p_body: body });
      await rpc(reporter, 'report_post', { p_post_id: post.id, p_reason: `about ${body}` });
      posts.push(post);
    }
    const report = await rpc(reporter, 'report_user', { p_username: troll.username, p_reason: 'the author' });
    // Every page, two elements at a time (other test files may report meanwhile: only ours are compared).
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { target_id: string }[]; next_cursor: string | null } = await rpc(admin, 'admin_reports', {
        p_limit: 2,
        ...(cursor ? { p_cursor: cursor } : {}),
      });
      seen.push(...page.items.map((g) => g.target_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    const ours = [troll.id, posts[2].id, posts[1].id, posts[0].id];
    expect(seen.filter((id) => ours.includes(id))).toEqual(ours);
    expect((await rpc(admin, 'admin_reports', { p_type: 'user', p_limit: 1 })).items[0].target_id).toBe(troll.id);

    await rpc(admin, 'admin_dismiss_report', { p_report_id: report.id });
    await rpc(troll, 'delete_post', { p_post_id: posts[0].id });
    const left = (await rpc(admin, 'admin_reports', { p_limit: 100 })).items.map((g: { target_id: string }) =>
      g.target_id
    );
    expect(left).not.toContain(troll.id);
    expect(left).not.toContain(posts[0].id);
    // Reports left pending by other files' bursts count, their summary's latest date is behind until folded.
    const drift = await asRoot`
      select coalesce(e.target_id, t.target_id) from private.reported_elements e
      full join (
        select target_type, coalesce(target_user_id, target_post_id, target_comment_id) as target_id,
          count(*)::int as n, max(created_at) as latest
        from public.reports group by 1, 2
      ) t on t.target_type = e.target_type and t.target_id = e.target_id
      left join private.pending_totals p on p.counter = e.target_type || '_reports' and p.target_id = e.target_id
      where e.reports_count + coalesce(p.delta, 0) is distinct from t.n
        or (p.delta is null and e.latest_at is distinct from t.latest)`;
    expect(drift).toEqual([]);
  });

  it('a banned user disappears, loses their sessions, is listed, can be unbanned; the history keeps both', async () => {
    const bad = await createAccount('bad');
    const watcher = await createAccount('watcher');
    const post = await rpc(bad, 'create_post', { p_body: 'bad day' });
    expect(await rpc(admin, 'admin_ban_user', { p_username: bad.username, p_reason: 'abuse' })).toMatchObject({
      banned: true,
    });
    expect(await errorOf(rpc(watcher, 'get_profile', { p_username: bad.username }))).toMatchObject({ code: 'PT404' });
    expect(await errorOf(rpc(watcher, 'get_post', { p_post_id: post.id }))).toMatchObject({ code: 'PT404' });
    expect(await as(bad, (tx) => tx`select private.uid() as uid`)).toEqual([{ uid: null }]);
    expect(await asRoot`select 1 from auth.sessions where user_id = ${bad.id}`).toEqual([]);
    const bans = await rpc(admin, 'admin_bans', { p_type: 'user' });
    expect(bans.items.some((b: { user: { id: string } }) => b.user.id === bad.id)).toBe(true);
    expect(await errorOf(rpc(admin, 'admin_ban_user', { p_username: bad.username, p_ban: true }))).toMatchObject({
      code: 'PT409',
      hint: 'already_banned',
    });

    expect(await rpc(otherAdmin, 'admin_ban_user', { p_username: bad.username, p_reason: 'appeal' })).toMatchObject({
      banned: false,
    });
    expect(await rpc(watcher, 'get_profile', { p_username: bad.username })).toMatchObject({ username: bad.username });
    const history = await rpc(admin, 'admin_ban_history', { p_element_id: bad.id });
    expect(history.items.map((h: { action: string; reason: string }) => [h.action, h.reason])).toEqual([[
      'unban',
      'appeal',
    ], ['ban', 'abuse']]);
    const byAdmin = await rpc(admin, 'admin_ban_history_by_admin', { p_username: otherAdmin.username });
    expect(byAdmin.items.some((h: { element_id: string }) => h.element_id === bad.id)).toBe(true);
  });

  it('admins cannot be banned', async () => {
    expect(await errorOf(rpc(admin, 'admin_ban_user', { p_username: otherAdmin.username, p_reason: 'coup' })))
      .toMatchObject({ code: 'PT409', hint: 'cannot_ban_admin' });
  });

  it('a ban or unban needs a reason; without one nothing changes', async () => {
    const quiet = await createAccount('quiet');
    const post = await rpc(quiet, 'create_post', { p_body: 'hello' });
    for (const reason of [undefined, '', '   ', 'x'.repeat(1001)]) {
      const args = reason === undefined ? {} : { p_reason: reason };
      expect(await errorOf(rpc(admin, 'admin_ban_user', { p_username: quiet.username, ...args }))).toMatchObject({
        code: 'PT400',
        hint: 'invalid_reason',
      });
      expect(await errorOf(rpc(admin, 'admin_ban_post', { p_post_id: post.id, ...args }))).toMatchObject({
        code: 'PT400',
        hint: 'invalid_reason',
      });
    }
    expect(await rpc(quiet, 'get_post', { p_post_id: post.id })).toMatchObject({ banned: false });
    expect(await asRoot`select 1 from public.ban_history where element_id in (${quiet.id}, ${post.id})`).toEqual([]);
    expect(await rpc(admin, 'admin_ban_post', { p_post_id: post.id, p_reason: '  spam  ' })).toMatchObject({
      banned: true,
    });
    const [row] = await asRoot`select reason from public.ban_history where element_id = ${post.id}`;
    expect(row.reason).toBe('spam');
  });

  it('a banned post is hidden except from admins and its author, and only then deletable by an admin', async () => {
    const author = await createAccount('author');
    const reader = await createAccount('reader');
    const post = await rpc(author, 'create_post', { p_body: 'borderline' });
    expect(await errorOf(rpc(admin, 'admin_delete_banned_post', { p_post_id: post.id }))).toMatchObject({
      code: 'PT409',
      hint: 'not_banned',
    });
    expect(await rpc(admin, 'admin_ban_post', { p_post_id: post.id, p_reason: 'nsfw' })).toMatchObject({
      banned: true,
      post: { banned: true },
    });
    expect(await errorOf(rpc(reader, 'get_post', { p_post_id: post.id }))).toMatchObject({ code: 'PT404' });
    expect(await rpc(author, 'get_post', { p_post_id: post.id })).toMatchObject({ banned: true });
    expect(await rpc(admin, 'admin_delete_banned_post', { p_post_id: post.id })).toEqual({
      deleted: true,
      id: post.id,
    });
    expect((await rpc(admin, 'admin_ban_history', { p_element_id: post.id })).items).toHaveLength(1);
  });

  it('deleting a banned user removes all they own and keeps their e-mail from registering again', async () => {
    const gone = await createAccount('gone');
    await rpc(gone, 'create_post', { p_body: 'last words' });
    expect(await errorOf(rpc(admin, 'admin_delete_banned_user', { p_username: gone.username }))).toMatchObject({
      code: 'PT409',
    });
    await rpc(admin, 'admin_ban_user', { p_username: gone.username, p_reason: 'spam' });
    expect(await rpc(admin, 'admin_delete_banned_user', { p_username: gone.username })).toMatchObject({
      deleted: true,
      id: gone.id,
    });
    expect(await asRoot`select 1 from auth.users where id = ${gone.id}`).toEqual([]);
    expect(await asRoot`select 1 from public.posts where author_id = ${gone.id}`).toEqual([]);
    expect(await asRoot`select 1 from private.banned_emails where email = ${gone.email}`).toHaveLength(1);
    expect((await rpc(admin, 'admin_ban_history', { p_element_id: gone.id })).items).toHaveLength(1);
    const again = await errorOf(
      asRoot`insert into auth.users (id, email, aud, role) values (gen_random_uuid(), ${gone.email}, 'authenticated', 'authenticated')`,
    );
    expect(again).toMatchObject({ code: 'PT403', hint: 'email_banned' });
  });

  it('admin rights are revoked at once', async () => {
    const temp = await createAccount('temp');
    await makeAdmin(temp);
    expect((await rpc(temp, 'admin_bans')).items).toEqual(expect.any(Array));
    await asRoot`select private.grant_admin(${temp.username}, false)`;
    expect(await errorOf(rpc(temp, 'admin_bans'))).toMatchObject({ code: 'PT403' });
  });
});

// rpc() of the admin functions: admin_ban_user, admin_delete_banned_user, admin_ban_post, admin_delete_banned_post,
// admin_reports, admin_dismiss_report, admin_bans, admin_ban_history, admin_ban_history_by_admin. Each: allowed
// for an admin, 403 admin_only for anyone else signed in (401 for anon), and its own refusals.
import { beforeAll, describe, expect, it } from 'vitest';
import { makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootPost, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

const adminOnly = { status: 403, code: 'PT403', hint: 'admin_only' };

describe.skipIf(!authIsRunning)('rpc: admin functions', () => {
  let admin: SdkUser;
  let otherAdmin: SdkUser;
  let member: SdkUser;

  beforeAll(async () => {
    [admin, otherAdmin, member] = await Promise.all([sdkUser('admin'), sdkUser('admin2'), sdkUser('member')]);
    await makeAdmin(admin);
    await makeAdmin(otherAdmin);
  });

  type Item = Record<string, unknown>;
  const items = (page: unknown) => (page as { items: Item[] }).items;

  it('admin_ban_user: an admin bans with a reason, ending the live session; others 403, anon 401; admins 409', async () => {
    const target = await sdkUser('target');
    expect(refusal(await member.sdk.rpc('admin_ban_user', { p_username: target.username, p_reason: 'spam' }))).toEqual(
      adminOnly,
    );
    expect(refusal(await anonSdk().rpc('admin_ban_user', { p_username: target.username, p_reason: 'spam' })))
      .toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    expect(refusal(await admin.sdk.rpc('admin_ban_user', { p_username: target.username, p_reason: '  ' })))
      .toEqual({ status: 400, code: 'PT400', hint: 'invalid_reason' });
    expect(refusal(await admin.sdk.rpc('admin_ban_user', { p_username: otherAdmin.username, p_reason: 'x' })))
      .toEqual({ status: 409, code: 'PT409', hint: 'cannot_ban_admin' });

    const banned = await admin.sdk.rpc('admin_ban_user', { p_username: target.username, p_reason: 'spam' });
    expect(banned.error).toBeNull();
    expect(banned.data).toMatchObject({ banned: true, user: { username: target.username, banned: true } });
    expect(refusal(await target.sdk.rpc('me'))).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    expect(
      refusal(await admin.sdk.rpc('admin_ban_user', { p_username: target.username, p_reason: 'again', p_ban: true })),
    )
      .toEqual({ status: 409, code: 'PT409', hint: 'already_banned' });
  });

  it('admin_delete_banned_user: an admin deletes a banned account; not one that is not banned (409); others 403', async () => {
    const [target, innocent] = await Promise.all([sdkUser('target'), sdkUser('innocent')]);
    await asRoot`select moderation.ban_user(${target.username}, 'banned by a test')`;
    expect(refusal(await member.sdk.rpc('admin_delete_banned_user', { p_username: target.username }))).toEqual(
      adminOnly,
    );
    expect(refusal(await admin.sdk.rpc('admin_delete_banned_user', { p_username: innocent.username })))
      .toEqual({ status: 409, code: 'PT409', hint: 'not_banned' });
    const deleted = await admin.sdk.rpc('admin_delete_banned_user', { p_username: target.username });
    expect([deleted.error, deleted.data]).toEqual([null, { deleted: true, id: target.id, username: target.username }]);
    expect(await asRoot`select 1 from auth.users where id = ${target.id}`).toEqual([]);
  });

  it('admin_ban_post: an admin bans a post (its author still sees it, marked); others 403; twice 409', async () => {
    const author = await sdkUser('author');
    const post = await rootPost(author, 'public');
    expect(refusal(await member.sdk.rpc('admin_ban_post', { p_post_id: post, p_reason: 'spam' }))).toEqual(adminOnly);
    const banned = await admin.sdk.rpc('admin_ban_post', { p_post_id: post, p_reason: 'spam' });
    expect(banned.error).toBeNull();
    expect(banned.data).toMatchObject({ banned: true, post: { id: post, banned: true } });
    expect((await author.sdk.rpc('get_post', { p_post_id: post })).data).toMatchObject({ banned: true });
    expect(refusal(await member.sdk.rpc('get_post', { p_post_id: post }))).toEqual({
      status: 404,
      code: 'PT404',
      hint: 'post_not_found',
    });
    expect(refusal(await admin.sdk.rpc('admin_ban_post', { p_post_id: post, p_reason: 'again', p_ban: true })))
      .toEqual({ status: 409, code: 'PT409', hint: 'already_banned' });
  });

  it('admin_delete_banned_post: an admin deletes a banned post; not one that is not banned (409); others 403', async () => {
    const author = await sdkUser('author');
    const [banned, kept] = [await rootPost(author, 'public'), await rootPost(author, 'public')];
    await asRoot`select moderation.ban_post(${banned}, 'banned by a test')`;
    expect(refusal(await member.sdk.rpc('admin_delete_banned_post', { p_post_id: banned }))).toEqual(adminOnly);
    expect(refusal(await admin.sdk.rpc('admin_delete_banned_post', { p_post_id: kept }))).toEqual({
      status: 409,
      code: 'PT409',
      hint: 'not_banned',
    });
    const deleted = await admin.sdk.rpc('admin_delete_banned_post', { p_post_id: banned });
    expect([deleted.error, deleted.data]).toEqual([null, { deleted: true, id: banned }]);
  });

  it('admin_reports and admin_dismiss_report: an admin lists and dismisses reports; others 403; an unknown report 404', async () => {
    const reported = await sdkUser('reported');
    const filed = await member.sdk.rpc('report_user', { p_username: reported.username, p_reason: 'rude' });
    const reportId = (filed.data as { id: string }).id;
    const list = await admin.sdk.rpc('admin_reports', { p_type: 'user', p_limit: 100 });
    expect(list.error).toBeNull();
    expect(items(list.data).find((item) => item.target_id === reported.id)).toMatchObject({
      reports_count: 1,
      target_type: 'user',
    });
    expect(refusal(await member.sdk.rpc('admin_reports'))).toEqual(adminOnly);

    expect(refusal(await member.sdk.rpc('admin_dismiss_report', { p_report_id: reportId }))).toEqual(adminOnly);
    const dismissed = await admin.sdk.rpc('admin_dismiss_report', { p_report_id: reportId });
    expect([dismissed.error, dismissed.data]).toEqual([null, { deleted: true, id: reportId }]);
    expect(refusal(await admin.sdk.rpc('admin_dismiss_report', { p_report_id: reportId })))
      .toEqual({ status: 404, code: 'PT404', hint: 'report_not_found' });
  });

  it('admin_bans: an admin lists what is banned now; others 403', async () => {
    const target = await sdkUser('target');
    await asRoot`select moderation.ban_user(${target.username}, 'banned by a test')`;
    const list = await admin.sdk.rpc('admin_bans', { p_type: 'user', p_limit: 100 });
    expect(list.error).toBeNull();
    expect(items(list.data).find((item) => (item.user as Item).id === target.id)).toMatchObject({ type: 'user' });
    expect(refusal(await member.sdk.rpc('admin_bans'))).toEqual(adminOnly);
  });

  it('admin_ban_history and admin_ban_history_by_admin: admins read who banned what and why; others 403', async () => {
    const target = await sdkUser('target');
    await admin.sdk.rpc('admin_ban_user', { p_username: target.username, p_reason: 'first' });
    await admin.sdk.rpc('admin_ban_user', { p_username: target.username, p_reason: 'second thoughts', p_ban: false });
    const history = await otherAdmin.sdk.rpc('admin_ban_history', { p_element_id: target.id });
    expect(history.error).toBeNull();
    expect(items(history.data).map((entry) => [entry.action, entry.reason, (entry.admin as Item).id]))
      .toEqual([['unban', 'second thoughts', admin.id], ['ban', 'first', admin.id]]);
    expect(refusal(await member.sdk.rpc('admin_ban_history', { p_element_id: target.id }))).toEqual(adminOnly);

    const byAdmin = await otherAdmin.sdk.rpc('admin_ban_history_by_admin', {
      p_username: admin.username,
      p_limit: 100,
    });
    expect(byAdmin.error).toBeNull();
    expect(items(byAdmin.data).filter((entry) => entry.element_id === target.id)).toHaveLength(2);
    expect(refusal(await member.sdk.rpc('admin_ban_history_by_admin', { p_username: admin.username }))).toEqual(
      adminOnly,
    );
  });

  it('an admin whose right is revoked is refused at once, in the same session', async () => {
    const former = await sdkUser('former');
    await makeAdmin(former);
    expect((await former.sdk.rpc('admin_bans')).error).toBeNull();
    await asRoot`delete from private.admins where user_id = ${former.id}`;
    expect(refusal(await former.sdk.rpc('admin_bans'))).toEqual(adminOnly);
  });
});

// public.reports through supabase-js: one reports a user, post or comment one may see, as oneself; a report is
// read by its reporter and admins, and dismissed (deleted) by admins only (docs/PRODUCT.md "Moderation").
import { beforeAll, describe, expect, it } from 'vitest';
import { banDirectly, makeAdmin } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, rootBlock, rootComment, rootPost, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('reports through supabase-js', () => {
  const u = {} as Record<string, SdkUser>;
  let post: string;
  let comment: string;
  let report: string; // reporter's report of the post
  let bannedReport: string; // filed by banned before its ban

  beforeAll(async () => {
    const labels = ['reporter', 'target', 'stranger', 'blocker', 'admin', 'banned'];
    (await Promise.all(labels.map((label) => sdkUser(label)))).forEach((user, i) => (u[labels[i]] = user));
    await makeAdmin(u.admin);
    post = await rootPost(u.target, 'public');
    comment = await rootComment(post, u.target);
    await rootBlock(u.blocker, u.target);
    [{ id: report }] = await asRoot`insert into public.reports (reporter_id, target_type, target_post_id, reason)
      values (${u.reporter.id}, 'post', ${post}, 'spam') returning id`;
    [{ id: bannedReport }] = await asRoot`insert into public.reports (reporter_id, target_type, target_user_id, reason)
      values (${u.banned.id}, 'user', ${u.target.id}, 'rude') returning id`;
    await banDirectly(u.banned);
  });

  it('insert: one reports a visible user, post and comment as oneself, once each', async () => {
    const filer = await sdkUser('filer');
    for (
      const target of [
        { target_type: 'user' as const, target_user_id: u.target.id },
        { target_type: 'post' as const, target_post_id: post },
        { target_type: 'comment' as const, target_comment_id: comment },
      ]
    ) {
      const { data, error } = await filer.sdk.from('reports').insert({ ...target, reason: 'not nice' }).select()
        .single();
      expect([target.target_type, error]).toEqual([target.target_type, null]);
      expect(data).toMatchObject({ ...target, reporter_id: filer.id, reason: 'not nice' });
    }
    const again = await filer.sdk.from('reports').insert({
      target_type: 'post',
      target_post_id: post,
      reason: 'again',
    });
    expect(refusal(again)).toEqual({ status: 409, code: '23505', hint: null });
  });

  it('insert: not of what one cannot see, not as another, not oneself, not banned, not anonymously', async () => {
    const secret = await rootPost(u.target, 'private');
    const hidden = await u.stranger.sdk.from('reports').insert({
      target_type: 'post',
      target_post_id: secret,
      reason: 'x',
    });
    expect(refusal(hidden)).toEqual({ status: 403, code: '42501', hint: null });
    const acrossBlock = await u.blocker.sdk.from('reports').insert({
      target_type: 'user',
      target_user_id: u.target.id,
      reason: 'x',
    });
    expect(refusal(acrossBlock)).toEqual({ status: 403, code: '42501', hint: null });
    const forged = await u.stranger.sdk.from('reports')
      .insert({ reporter_id: u.target.id, target_type: 'post', target_post_id: post, reason: 'x' });
    expect(refusal(forged)).toEqual({ status: 403, code: '42501', hint: null });
    const self = await u.stranger.sdk.from('reports').insert({
      target_type: 'user',
      target_user_id: u.stranger.id,
      reason: 'x',
    });
    expect(refusal(self)).toEqual({ status: 400, code: 'PT400', hint: 'invalid_reason' });
    const banned = await u.banned.sdk.from('reports').insert({
      target_type: 'post',
      target_post_id: post,
      reason: 'x',
    });
    expect(refusal(banned)).toEqual({ status: 403, code: '42501', hint: null });
    const anon = await anonSdk().from('reports').insert({ target_type: 'post', target_post_id: post, reason: 'x' });
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
  });

  it('select: a report is read by its reporter and admins; not by the reported, strangers, or its banned reporter', async () => {
    const seen: Record<string, string[]> = {};
    for (const name of ['reporter', 'target', 'stranger', 'banned', 'admin']) {
      const { data, error } = await u[name].sdk.from('reports').select('id').in('id', [report, bannedReport]);
      expect(error).toBeNull();
      seen[name] = data!.map((row) => (row.id === report ? 'report' : 'bannedReport')).sort();
    }
    expect(seen).toEqual({
      reporter: ['report'],
      target: [],
      stranger: [],
      banned: [],
      admin: ['bannedReport', 'report'],
    });
    const anon = await anonSdk().from('reports').select('id');
    expect(refusal(anon)).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
  });

  it('delete: only admins dismiss a report; its reporter (who cannot withdraw it) and others delete 0 rows', async () => {
    const [{ id }] = await asRoot`insert into public.reports (reporter_id, target_type, target_comment_id, reason)
      values (${u.reporter.id}, 'comment', ${comment}, 'to dismiss') returning id`;
    for (const name of ['reporter', 'target', 'stranger']) {
      const { data, error } = await u[name].sdk.from('reports').delete().eq('id', id).select('id');
      expect([name, error, data]).toEqual([name, null, []]);
    }
    const { data } = await u.admin.sdk.from('reports').delete().eq('id', id).select('id');
    expect(data).toEqual([{ id }]);
    expect(await asRoot`select 1 from public.reports where id = ${id}`).toEqual([]);
  });
});

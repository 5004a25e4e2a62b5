// Counters under a fault (issue 55): 16 callers toggle, at once, their like of one post, their like of one comment
// and their follow of one account, through the facade, while its database sessions are terminated mid-transaction
// again and again. A toggle cut off rolls back whole, its pending counter change with it: afterwards every count
// shown equals the rows, no answer showed a negative count, the integrity report lists nothing of these targets,
// and the recount corrects nothing.
import { describe, expect, it } from 'vitest';
import { createLoadWriter } from '../helpers/accounts.ts';
import { asRoot } from '../helpers/db.ts';
import { authIsRunning } from '../helpers/stack.ts';
import { failuresByCode, printFigures } from './helpers/figures.ts';
import { terminateFunctionBackends, withDatabase } from './helpers/inject.ts';
import { call, ok, sleep, startTraffic } from './helpers/traffic.ts';

const togglers = 16;
const faultMs = 8_000;
const everyMs = 150;

describe.skipIf(!authIsRunning)("counters of one hot target, its togglers' sessions terminated", () => {
  it('stay exact: shown counts equal the rows, none negative, nothing for the recount to correct', async () => {
    const [star, ...fans] = await Promise.all(Array.from({ length: togglers + 1 }, () => createLoadWriter('hot')));
    const post = await call('setup', 'POST', '/post/create', { token: star.accessToken, json: { body: 'viral' } });
    const comment = await call('setup', 'POST', `/post/${post.body.id}/comment`, {
      token: star.accessToken,
      json: { body: 'and viral too' },
    });
    expect([post.status, comment.status]).toEqual([201, 201]);
    const toggles = [`/post/${post.body.id}/like`, `/post/comment/${comment.body.id}/like`, `/${star.username}/follow`];
    const traffic = startTraffic(
      togglers,
      (worker, n) =>
        call(['post like', 'comment like', 'follow'][n % 3], 'POST', toggles[n % 3], {
          token: fans[worker].accessToken,
        }),
    );
    await sleep(1_000);
    const from = performance.now();
    const terminated = await withDatabase(async (sql) => {
      let ended = 0;
      while (performance.now() - from < faultMs) {
        ended += (await terminateFunctionBackends(sql)).inTransaction;
        await sleep(everyMs);
      }
      return ended;
    });
    await sleep(1_000);
    const outcomes = await traffic.stop();

    const shownNegative = outcomes.filter(ok).filter((o) => (o.body.likes_count ?? o.body.user?.followers_count) < 0);
    const [rows] = await asRoot`select
        (select count(*)::int from public.post_likes where post_id = ${post.body.id}) as post_likes,
        (select count(*)::int from public.comment_likes where comment_id = ${comment.body.id}) as comment_likes,
        (select count(*)::int from public.follows where followee_id = ${star.id} and status = 'accepted') as followers`;
    const shown = async (path: string) => (await call('read', 'GET', path, { token: star.accessToken })).body;
    const counts = {
      post_likes: (await shown(`/post/${post.body.id}`)).likes_count,
      comment_likes: (await shown(`/post/comment/${comment.body.id}`)).likes_count,
      followers: (await shown(`/${star.username}`)).followers_count,
    };
    const ours = [post.body.id, comment.body.id, star.id, ...fans.map((f) => f.id)];
    const broken = await asRoot`select problem, element_id from moderation.integrity_report()
      where element_id::text = any(${ours})`;
    await asRoot`select private.fold_pending_counts()`;
    const [{ corrected }] = await asRoot`select private.recount_counters() as corrected`;
    printFigures(`pg_terminate_backend on the function's sessions every ${everyMs} ms under ${togglers} togglers`, {
      'toggles': outcomes.length,
      'acknowledged (2xx)': outcomes.filter(ok).length,
      'sessions terminated inside a transaction': terminated,
      'rows': rows,
      'counts shown': counts,
      'failures by kind, status and code': failuresByCode(outcomes),
    });

    expect(terminated, 'sessions terminated mid-transaction').toBeGreaterThan(0);
    expect(counts).toEqual(rows);
    expect(shownNegative, 'answers showing a negative count').toEqual([]);
    expect(broken, 'integrity report rows of these targets').toEqual([]);
    expect(corrected, 'counters the recount had to correct').toBe(0);
  });
});

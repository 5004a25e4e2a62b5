// Requests that race each other on the same comment: the answer is the final state.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../helpers/accounts.ts';
import { asRoot, lockWaits, rpc } from '../helpers/db.ts';
import { api } from '../helpers/http.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('POST /post/comment/:commentId/reply', () => {
  it('answers 404 comment_not_found when the comment is deleted while the reply is written', async () => {
    const author = await createAccount('author');
    const replier = await createAccount('replier');
    const post = await rpc(author, 'create_post', { p_body: 'talk to me' });
    const parent = await rpc(author, 'comment_post', { p_post_id: post.id, p_body: 'first' });
    const holder = await asRoot.reserve();
    try {
      await holder`begin`;
      // Inserts into comments wait; reads do not: the reply finds its parent, then waits to insert.
      await holder`lock table public.comments in share mode`;
      const reply = api('POST', `/post/comment/${parent.id}/reply`, {
        token: replier.accessToken,
        json: { body: 'late' },
      });
      await lockWaits(1);
      await holder`delete from public.comments where id = ${parent.id}`;
      await holder`commit`;
      const answer = await reply;
      expect([answer.status, answer.body.error.code]).toEqual([404, 'comment_not_found']);
    } finally {
      holder.release();
    }
    const [{ replies }] =
      await asRoot`select count(*)::int as replies from public.comments where parent_id = ${parent.id}`;
    expect(replies).toBe(0);
  });
});

// order, range and count as supabase-js users page a table: pages follow the order, and counts (with or without
// the rows) count only the rows the reader may see.
import { beforeAll, describe, expect, it } from 'vitest';
import { anonSdk, refusal, rootBlock, rootPost, type Sdk, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('paging and counting through supabase-js', () => {
  let author: SdkUser;
  let reader: SdkUser;
  let blocker: SdkUser;
  const written: string[] = []; // oldest first

  beforeAll(async () => {
    [author, reader, blocker] = await Promise.all(['author', 'reader', 'blocker'].map((label) => sdkUser(label)));
    for (const n of [1, 2, 3, 4, 5]) written.push(await rootPost(author, 'public', `day ${n}`)); // one transaction each: distinct times
    await rootPost(author, 'private', 'day 6, private');
    await rootBlock(blocker, author);
  });

  const page = (client: Sdk, from: number, to: number) =>
    client.from('posts').select('id', { count: 'exact' }).eq('author_id', author.id)
      .order('created_at', { ascending: false }).order('id', { ascending: false }).range(from, to);

  it('order + range: pages of two, newest first, with the exact count of what the reader may see', async () => {
    const seen: string[] = [];
    for (const [from, to] of [[0, 1], [2, 3], [4, 5]]) {
      const { data, count, error, status } = await page(reader.sdk, from, to);
      expect(error).toBeNull();
      expect(count).toBe(5); // not the private post
      expect(status).toBe(206); // part of the whole: 206 Partial Content
      seen.push(...data!.map((row) => row.id));
    }
    expect(seen).toEqual([...written].reverse());
    expect((await page(reader.sdk, 0, 9)).status).toBe(200); // the whole in one page
    const beyond = await page(reader.sdk, 6, 7);
    expect(refusal(beyond)).toMatchObject({ status: 416, code: 'PGRST103' }); // past the end
  });

  it('count exact differs by reader: the author counts their private post, a blocker counts nothing', async () => {
    expect((await page(author.sdk, 0, 1)).count).toBe(6);
    expect((await page(anonSdk(), 0, 1)).count).toBe(5);
    const blocked = await page(blocker.sdk, 0, 1);
    expect([blocked.count, blocked.data]).toEqual([0, []]);
  });

  it('head: true counts without the rows; a table the caller may not read is refused, not counted', async () => {
    const { data, count, error } = await reader.sdk.from('posts').select('*', { count: 'exact', head: true }).eq(
      'author_id',
      author.id,
    );
    expect([error, data, count]).toEqual([null, null, 5]);
    const anon = await anonSdk().from('reports').select('*', { count: 'exact', head: true });
    expect(anon.status).toBe(401); // a HEAD answer has no body: the status is all supabase-js gets
    expect(anon.count).toBeNull();
  });

  it('update and delete take a count too: 0 for rows the caller may not change, 1 for its own', async () => {
    const other = await reader.sdk.from('posts').update({ body: 'not mine' }, { count: 'exact' }).eq('id', written[0]);
    expect([other.error, other.count]).toEqual([null, 0]);
    const own = await author.sdk.from('posts').update({ body: 'day 1, edited' }, { count: 'exact' }).eq(
      'id',
      written[0],
    );
    expect([own.error, own.count]).toEqual([null, 1]);
    const removeOther = await reader.sdk.from('posts').delete({ count: 'exact' }).eq('id', written[0]);
    expect([removeOther.error, removeOther.count]).toEqual([null, 0]);
  });
});

// Filters, full-text search, single rows and GET calls of functions as supabase-js users write them: each
// filters only the rows the reader may see, so no filter finds a hidden row.
import { beforeAll, describe, expect, it } from 'vitest';
import { anonSdk, refusal, rootPost, type Sdk, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('filters through supabase-js', () => {
  let author: SdkUser;
  let reader: SdkUser;
  let needle: string; // a word no other test writes
  let open: string;
  let secret: string;

  beforeAll(async () => {
    [author, reader] = await Promise.all([sdkUser('author'), sdkUser('reader')]);
    needle = `needle${Date.now().toString(36)}`;
    open = await rootPost(author, 'public', `an open ${needle}`);
    secret = await rootPost(author, 'private', `a secret ${needle}`);
  });

  const bodies = (rows: { body: string }[] | null) => (rows ?? []).map((row) => row.body).sort();

  it("ilike and textSearch find the reader's visible posts only", async () => {
    const like = (client: Sdk) => client.from('posts').select('body').ilike('body', `%${needle.toUpperCase()}%`);
    expect(bodies((await like(author.sdk)).data)).toEqual([`a secret ${needle}`, `an open ${needle}`]);
    expect(bodies((await like(reader.sdk)).data)).toEqual([`an open ${needle}`]);
    const words = (client: Sdk) =>
      client.from('posts').select('body').textSearch('body_search', `secret & ${needle}`, { config: 'simple' });
    expect(bodies((await words(author.sdk)).data)).toEqual([`a secret ${needle}`]);
    const hidden = await words(anonSdk());
    expect([hidden.error, hidden.data]).toEqual([null, []]);
  });

  it('or, in, is and neq combine as PostgREST reads them, still within what the reader may see', async () => {
    const query = (client: Sdk) =>
      client.from('posts').select('body').in('id', [open, secret])
        .or('privacy.eq.private,emotion.gt.50').is('edited_at', null).neq('body', '');
    expect(bodies((await query(author.sdk)).data)).toEqual([`a secret ${needle}`]);
    expect((await query(reader.sdk)).data).toEqual([]);
  });

  it('single() wants exactly one row (406 PGRST116 otherwise); maybeSingle() accepts none', async () => {
    const one = await reader.sdk.from('posts').select('id').eq('id', open).single();
    expect([one.error, one.data]).toEqual([null, { id: open }]);
    const none = await reader.sdk.from('posts').select('id').eq('id', secret).single();
    expect(refusal(none)).toMatchObject({ status: 406, code: 'PGRST116' });
    const many = await author.sdk.from('posts').select('id').in('id', [open, secret]).single();
    expect(refusal(many)).toMatchObject({ status: 406, code: 'PGRST116' });
    const maybe = await reader.sdk.from('posts').select('id').eq('id', secret).maybeSingle();
    expect([maybe.status, maybe.error, maybe.data]).toEqual([200, null, null]);
  });

  it('a bad filter is a 400: an unknown column (42703), a malformed uuid (22P02)', async () => {
    const column = await reader.sdk.from('posts').select('id').eq('no_such_column' as 'id', 'x');
    expect(refusal(column)).toEqual({ status: 400, code: '42703', hint: null });
    const uuid = await reader.sdk.from('posts').select('id').eq('id', 'not-a-uuid');
    expect(refusal(uuid)).toEqual({ status: 400, code: '22P02', hint: null });
  });

  it('rpc(..., { get: true }) calls a stable function by GET; a volatile one is refused (405)', async () => {
    const got = await reader.sdk.rpc('get_post', { p_post_id: open }, { get: true });
    expect(got.error).toBeNull();
    expect(got.data).toMatchObject({ id: open, body: `an open ${needle}` });
    const write = await reader.sdk.rpc('create_post', { p_body: 'by GET' }, { get: true });
    expect(refusal(write)).toEqual({ status: 405, code: '25006', hint: null }); // read-only transaction
  });
});

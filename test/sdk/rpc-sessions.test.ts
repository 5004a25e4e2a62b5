// rpc() of sessions: my_sessions, end_session, end_other_sessions. Each: one call allowed, one denied.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { anonSdk, refusal, sdkUser, signedInSdk } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

describe.skipIf(!authIsRunning)('rpc: sessions', () => {
  const ids = (page: unknown) => (page as { items: { id: string; current: boolean }[] }).items;

  it("my_sessions: one lists one's own sessions, the current one marked; anon is refused", async () => {
    const owner = await sdkUser('owner');
    const second = await signedInSdk(owner);
    const listed = await second.rpc('my_sessions');
    expect(listed.error).toBeNull();
    expect(ids(listed.data).length).toBeGreaterThanOrEqual(2); // each sign-in is a session
    expect(ids(listed.data).filter((s) => s.current)).toHaveLength(1);
    expect(refusal(await anonSdk().rpc('my_sessions'))).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
  });

  it("end_session: one ends one's own other session, whose token is then refused; another's is 404", async () => {
    const [owner, stranger] = await Promise.all([sdkUser('owner'), sdkUser('stranger')]);
    const second = await signedInSdk(owner);
    const other = ids((await second.rpc('my_sessions')).data).find((s) => !s.current)!;
    const ended = await second.rpc('end_session', { p_session_id: other.id });
    expect([ended.error, ended.data]).toEqual([null, { ended: 1 }]);
    expect(refusal(await owner.sdk.rpc('me'))).toEqual({ status: 401, code: 'PT401', hint: 'unauthorized' });
    const strangers = ids((await stranger.sdk.rpc('my_sessions')).data)[0].id;
    for (const id of [strangers, randomUUID()]) {
      expect(refusal(await second.rpc('end_session', { p_session_id: id }))).toEqual({
        status: 404,
        code: 'PT404',
        hint: 'session_not_found',
      });
    }
  });

  it('end_other_sessions: one signs out everywhere else; anon is refused', async () => {
    const owner = await sdkUser('owner');
    const second = await signedInSdk(owner);
    const before = ids((await second.rpc('my_sessions')).data).length;
    const ended = await second.rpc('end_other_sessions');
    expect([ended.error, ended.data]).toEqual([null, { ended: before - 1 }]);
    expect(ids((await second.rpc('my_sessions')).data)).toHaveLength(1);
    expect(refusal(await anonSdk().rpc('end_other_sessions'))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
  });
});

// rpc() of a second factor's recovery: factor_recovery, cancel_factor_recovery, complete_factor_recovery. Each:
// one call allowed, one denied. Starting one is the facade's alone (after the e-mailed code): not a function of
// the API.
import { describe, expect, it } from 'vitest';
import { asRoot } from '../helpers/db.ts';
import { anonSdk, refusal, type SdkUser, sdkUser } from '../helpers/sdk.ts';
import { authIsRunning } from '../helpers/stack.ts';

/** A recovery of `user`'s factors as the facade starts it, waited out when `over`. */
async function recovery(user: SdkUser, over = false): Promise<void> {
  await asRoot`insert into private.factor_recoveries (user_id, requested_at, completes_at)
    values (${user.id}, now() - interval '73 hours', case when ${over}::boolean then now() - interval '1 hour' else now() + interval '1 day' end)`;
}

describe.skipIf(!authIsRunning)("rpc: a second factor's recovery", () => {
  it("factor_recovery: one reads one's pending recovery (null without); anon is refused", async () => {
    const [owner, other] = await Promise.all([sdkUser('owner'), sdkUser('other')]);
    await recovery(owner);
    const pending = (await owner.sdk.rpc('factor_recovery')).data as { completes_at: string };
    expect(Date.parse(pending.completes_at)).toBeGreaterThan(Date.now());
    expect((await other.sdk.rpc('factor_recovery')).data).toBeNull();
    expect(refusal(await anonSdk().rpc('factor_recovery'))).toEqual({
      status: 401,
      code: 'PT401',
      hint: 'unauthorized',
    });
  });

  it("cancel_factor_recovery: one cancels one's own; with none, 404", async () => {
    const owner = await sdkUser('owner');
    await recovery(owner);
    expect((await owner.sdk.rpc('cancel_factor_recovery')).data).toEqual({ cancelled: true });
    expect(refusal(await owner.sdk.rpc('cancel_factor_recovery'))).toEqual({
      status: 404,
      code: 'PT404',
      hint: 'recovery_not_found',
    });
  });

  it("complete_factor_recovery: only once the wait is over (409 before); start_factor_recovery is not the API's", async () => {
    const [waiting, done] = await Promise.all([sdkUser('waiting'), sdkUser('done')]);
    await Promise.all([recovery(waiting), recovery(done, true)]);
    expect(refusal(await waiting.sdk.rpc('complete_factor_recovery'))).toEqual({
      status: 409,
      code: 'PT409',
      hint: 'recovery_pending',
    });
    expect((await done.sdk.rpc('complete_factor_recovery')).data).toEqual({ removed: 0 });
    const direct = await waiting.sdk.rpc('start_factor_recovery' as 'me', { p_user: waiting.id } as never);
    expect([direct.status, direct.error?.code]).toEqual([404, 'PGRST202']);
  });
});

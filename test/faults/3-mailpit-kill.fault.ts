// Mailpit (the local mail server the Send Email hook sends codes through) killed: the supervisor must bring it
// back, and /health must say `mail: down` meanwhile and `mail: up` after. Needs no Auth.
import { describe, expect, it } from 'vitest';
import { formatMs, printFigures } from './helpers/figures.ts';
import { killService, servicePid } from './helpers/inject.ts';
import { call, type Outcome, sleep, waitUntil } from './helpers/traffic.ts';

const recoveryBoundMs = 30_000;

describe('Mailpit killed', () => {
  it('is restarted by the supervisor, and /health names the mail server while it is down', async () => {
    const seen: Outcome[] = [];
    const mail = async () => {
      const health = await call('health', 'GET', '/health');
      seen.push(health);
      return health.body?.mail;
    };
    expect(await mail(), '/health reports the mail server').toBe('up');
    const killedAt = performance.now();
    const killedPid = killService('mailpit');
    const sawDown = await waitUntil(async () => await mail() === 'down', 5_000);
    const cameBack = await waitUntil(
      async () => servicePid('mailpit') !== killedPid && await mail() === 'up',
      recoveryBoundMs,
    );
    const backAt = performance.now();
    await sleep(200);
    printFigures('Mailpit killed (SIGKILL), watched through /health', {
      '/health requests': seen.length,
      'mail: down seen': sawDown,
      'Mailpit back (kill → mail: up)': cameBack
        ? formatMs(backAt - killedAt)
        : `NOT BACK within ${recoveryBoundMs / 1000} s`,
      'Mailpit pid': `${killedPid} → ${servicePid('mailpit')}`,
    });

    expect(sawDown, '/health said mail: down while Mailpit was down').toBe(true);
    expect(cameBack, 'the supervisor restarted Mailpit').toBe(true);
  });
});

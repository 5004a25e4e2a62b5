// How far behind the primary each replica is, in time: how long ago the primary had written WAL the replica
// has not replayed yet. A replica's own clock cannot say it (the time of the last transaction it replayed
// ages while the primary is idle, or writes only WAL that commits nothing), so the primary's WAL position is
// noted with the time whenever the lag is measured, and a replica's replay position is placed among those
// notes: the figure is an upper bound, never less than the real lag. Measured at most every quarter second,
// when a read asks; the notes are kept as long as the bound needs. Staleness is this process's own estimate:
// read-your-writes does not depend on it (query.ts).
import type postgres from 'postgres';

const measureEveryMs = 250;

/** A WAL position ("16/B374D848") as a number. */
export function lsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

export interface LagMeter {
  /** Each replica's lag in ms (Infinity when it did not answer), measured at most a quarter second ago. */
  lags(): Promise<number[]>;
}

export function createLagMeter(primary: postgres.Sql, replicas: () => postgres.Sql[], maxLagMs: number): LagMeter {
  const notes: { at: number; position: bigint }[] = [];
  let measured: { at: number; lags: Promise<number[]> } | undefined;

  const replayed = (replica: postgres.Sql) =>
    replica`select pg_last_wal_replay_lsn()::text as position`.then(([row]) => lsn(row.position), () => undefined);

  async function measure(): Promise<number[]> {
    const [[{ position }], positions] = await Promise.all([
      primary`select pg_current_wal_lsn()::text as position`,
      Promise.all(replicas().map(replayed)),
    ]);
    const now = Date.now();
    notes.push({ at: now, position: lsn(position) });
    while (notes.length > 1 && notes[0].at < now - maxLagMs - 1_000) notes.shift();
    return positions.map((replay) => {
      if (replay === undefined) return Infinity;
      if (replay >= notes[notes.length - 1].position) return 0;
      // What the replica lacks was written after the last note of a position it has reached: at most this long
      // ago. Without such a note it may be behind by any time: it is not used until it catches up.
      const reached = notes.findLast((note) => note.position <= replay);
      return reached ? now - reached.at : Infinity;
    });
  }

  return {
    lags() {
      if (!measured || Date.now() - measured.at > measureEveryMs) {
        const lags = measure();
        measured = { at: Date.now(), lags };
        // A failed measurement (the primary unreachable) is tried again by the next read.
        lags.catch(() => (measured = undefined));
      }
      return measured.lags;
    },
  };
}

// Reads supabase/config.toml, resolving the CLI's `env(NAME)` strings, and lays out one local stack
// ("profile"): its folder under .local/, its ports and its URLs.
import { parse } from 'smol-toml';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const localDir = join(repoRoot, '.local');
export const binDir = join(localDir, 'bin');

// deno-lint-ignore no-explicit-any
export type Toml = Record<string, any>;

function resolveEnvStrings(value: unknown): unknown {
  if (typeof value === 'string') {
    const match = /^env\((\w+)\)$/.exec(value);
    return match ? (Deno.env.get(match[1]) ?? '') : value;
  }
  if (Array.isArray(value)) return value.map(resolveEnvStrings);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveEnvStrings(v)]));
  }
  return value;
}

export function readConfig(): Toml {
  const text = Deno.readTextFileSync(join(repoRoot, 'supabase', 'config.toml'));
  return resolveEnvStrings(parse(text)) as Toml;
}

export interface Ports {
  api: number; // the gateway: /auth/v1, /rest/v1 and /functions/v1
  db: number;
  mailApi: number; // Mailpit's web UI and REST API
  smtp: number;
  auth: number; // Supabase Auth itself, behind the gateway
  functions: number; // the facade's Deno process, behind the gateway
  rest: number; // PostgREST, behind the gateway
  restAdmin: number; // PostgREST's admin server (/live, /ready), for the stack alone
  pooler: number; // PgBouncer in transaction mode in front of the primary: the facade's way in
  replica: number; // the streaming read replica (a hot standby of the primary)
}

export interface Profile {
  /** dev: `npm start`; test: `npm test` and `npm run bench`; faults: `npm run faults`; bench: `npm run bench:scale`. */
  name: 'dev' | 'test' | 'faults' | 'bench';
  dir: string;
  ports: Ports;
  /** A database the user runs already (superuser URL); the stack then creates no cluster of its own. */
  externalDbUrl?: string;
  /** Wipe the profile's data before starting (the test stack always starts fresh). */
  fresh: boolean;
  /** Whether the stack runs a streaming read replica (the scale benchmark above full size runs none). */
  replica: boolean;
  /** The variable that moves all its ports (none: the bench stack's stay where they are). */
  portShiftVariable?: string;
  /** V8 flags for the facade's process (the soak has it trace its garbage collections into its log). */
  facadeV8Flags?: string[];
}

/** How far each profile's ports are from those of config.toml, and the variable that moves them. */
const portShifts = {
  dev: { variable: 'STACK_PORT_SHIFT', shift: 0 },
  test: { variable: 'STACK_TEST_PORT_SHIFT', shift: 1000 },
  bench: { variable: undefined, shift: 2000 },
  // Above Linux's ephemeral port range (32768-60999), where no client connection can take a port first.
  faults: { variable: 'STACK_FAULTS_PORT_SHIFT', shift: 7000 },
};

/**
 * A shift that is not a whole number, or that moves a port out of 1-65535, is named as such, with the shifts that
 * fit, before anything tries to listen (where it would read as a port already in use).
 */
function assertShiftFits(unshifted: Record<string, number>, shift: number, what: string): void {
  const values = Object.values(unshifted);
  const [low, high] = [Math.min(...values), Math.max(...values)];
  const fits = `use a whole number from ${1 - low} to ${65535 - high}`;
  if (!Number.isInteger(shift)) throw new Error(`${what} is not a whole number of ports: ${fits}`);
  if (low + shift < 1 || high + shift > 65535) {
    throw new Error(
      `${what} puts the stack's ports at ${low + shift} to ${high + shift}, outside TCP's 1 to 65535: ${fits}`,
    );
  }
}

/**
 * Ports of `npm start` come from config.toml, moved by STACK_PORT_SHIFT when set (another Supabase stack, or a
 * second project, holds them); the test stack shifts them by 1000, the scale benchmark's by 2000 and the fault
 * suite's by 7000, so all can run at once (STACK_TEST_PORT_SHIFT moves a second checkout's test stack
 * elsewhere, so two can run side by side; STACK_FAULTS_PORT_SHIFT the same for the fault suite). The bench
 * stack starts fresh unless told to keep its seeded database.
 */
export function profile(
  name: Profile['name'],
  config: Toml,
  options: { keep?: boolean; replica?: boolean; dirName?: string; facadeV8Flags?: string[] } = {},
): Profile {
  const { variable, shift: defaultShift } = portShifts[name];
  const given = variable && Deno.env.get(variable);
  const shift = Number(given || defaultShift);
  const portsAt = (shift: number) => {
    const api = config.api.port + shift;
    return {
      api,
      db: config.db.port + shift,
      mailApi: config.local_smtp.port + shift,
      smtp: config.local_smtp.smtp_port + shift,
      auth: api + 5,
      functions: api + 6,
      rest: api + 8,
      restAdmin: api + 9,
      pooler: (config.db.pooler?.port ?? config.db.port + 9) + shift,
      replica: config.db.port + 10 + shift,
    };
  };
  assertShiftFits(portsAt(0), shift, given ? `${variable}=${given}` : `the ${name} stack's shift of ${defaultShift}`);
  const ports = portsAt(shift);
  return {
    name,
    // A test stack moved to other ports is a second one: its data lives apart too (.local/test-3000). The
    // development stack keeps its data wherever its ports are.
    dir: join(localDir, options.dirName ?? (shift === defaultShift || name === 'dev' ? name : `${name}-${shift}`)),
    ports,
    externalDbUrl: name === 'dev' ? Deno.env.get('SUPABASE_DB_URL') || undefined : undefined,
    fresh: name === 'bench' ? !options.keep : name !== 'dev',
    replica: options.replica ?? true,
    portShiftVariable: variable,
    facadeV8Flags: options.facadeV8Flags,
  };
}

export function urls(p: Profile) {
  const api = `http://127.0.0.1:${p.ports.api}`;
  return {
    api,
    auth: `${api}/auth/v1`,
    functions: `${api}/functions/v1`,
    rest: `${api}/rest/v1`,
    authDirect: `http://127.0.0.1:${p.ports.auth}`,
    functionsDirect: `http://127.0.0.1:${p.ports.functions}`,
    restDirect: `http://127.0.0.1:${p.ports.rest}`,
    restAdmin: `http://127.0.0.1:${p.ports.restAdmin}`,
    mailpit: `http://127.0.0.1:${p.ports.mailApi}`,
  };
}

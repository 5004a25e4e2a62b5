// What a catalogued Studio action is (test/helpers/studio-actions.ts), and the Studio and pg-meta sources the
// actions mirror: each path read in supabase/supabase or supabase/postgres-meta.
import type { Scene, View } from './studio-scene.ts';

/** How an admin reaches the database in Studio. */
export type Door = 'auth-admin' | 'table-editor' | 'csv-import' | 'triggers' | 'sql-editor-impersonation';

/** Kept: the action stands and the rules follow it; corrected: the database rewrites part of it; refused: nothing changes. */
export type Expected =
  | { outcome: 'kept' }
  | { outcome: 'corrected'; how: string }
  /** `code`: the refusal's code of supabase/ERRORS.md (an Auth error_code, or a SQLSTATE where Postgres refuses first). */
  | { outcome: 'refused'; code: string };

export interface StudioAction {
  /** Stable and unique: "<door's word>: <what the admin does>". */
  name: string;
  door: Door;
  /** The Studio or pg-meta source whose request `send` repeats. */
  mirrors: string;
  expected: Expected;
  /** An action on the schema alone (a trigger switch): no scene is made, `then` checks the schema. */
  withoutScene?: boolean;
  /** Data the action needs beyond the scene, made before the scene is read. */
  prepare?: (s: Scene) => Promise<void>;
  /** The request, as Studio sends it. An Auth answer of 400 and up counts as a refusal. */
  send: (s: Scene) => Promise<unknown>;
  /**
   * What the facade and supabase-js must read after it (a refused action must change nothing they read, which the
   * runner checks itself); `result` is what `send` answered.
   */
  then?: (s: Scene, before: View, after: View, result: unknown) => Promise<void> | void;
}

export const kept: Expected = { outcome: 'kept' };
export const corrected = (how: string): Expected => ({ outcome: 'corrected', how });
export const refused = (code: string): Expected => ({ outcome: 'refused', code });

const studio = 'supabase/supabase';
const pgMeta = 'supabase/postgres-meta';

export const sources = {
  addUser: `${studio} apps/studio/data/auth/user-create-mutation.ts`,
  inviteUser: `${studio} apps/studio/data/auth/user-invite-mutation.ts`,
  magicLink: `${studio} apps/studio/data/auth/user-send-magic-link-mutation.ts`,
  recovery: `${studio} apps/studio/data/auth/user-reset-password-mutation.ts`,
  confirmation: `${studio} apps/studio/data/auth/user-send-confirmation-mutation.ts`,
  resendConfirmation: `${studio} apps/studio/data/auth/user-resend-confirmation-mutation.ts`,
  sendOtp: `${studio} apps/studio/data/auth/user-send-otp-mutation.ts`,
  updateUser: `${studio} apps/studio/data/auth/user-update-mutation.ts`,
  deleteUser: `${studio} apps/studio/data/auth/user-delete-mutation.ts`,
  deleteFactors: `${studio} apps/studio/data/auth/user-delete-mfa-factors-mutation.ts`,
  insertRow:
    `${studio} packages/pg-meta/src/query/Query.utils.ts (insertQuery), apps/studio/data/table-rows/table-row-create-mutation.ts`,
  updateRow:
    `${studio} packages/pg-meta/src/query/Query.utils.ts (updateQuery), apps/studio/data/table-rows/table-row-update-mutation.ts`,
  deleteRow:
    `${studio} packages/pg-meta/src/query/Query.utils.ts (deleteQuery), apps/studio/data/table-rows/table-row-delete-mutation.tsx`,
  truncate:
    `${studio} packages/pg-meta/src/query/Query.utils.ts (truncateQuery), apps/studio/data/table-rows/table-row-truncate-mutation.ts`,
  csvImport:
    `${studio} apps/studio/components/interfaces/TableGridEditor/SidePanelEditor/SidePanelEditor.utils.ts (insertRowsViaSpreadsheet)`,
  triggerSwitch: `${pgMeta} src/lib/PostgresMetaTriggers.ts (update)`,
  impersonation:
    `${studio} apps/studio/lib/role-impersonation.ts, packages/pg-meta/src/sql/studio/role-impersonation.ts`,
} as const;

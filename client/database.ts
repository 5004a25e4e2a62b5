// The database types for supabase-js (`createClient<Database>`), with every API function's JSON typed: the
// generated types (database.types.ts, `npm run types`) say `Returns: Json` for a jsonb result, so each such
// function's `Returns` is replaced, as Supabase documents for JSON, by the answer of the route that answers with
// that JSON, read from schema.d.ts (`npm run client`, from the routes' zod schemas): one source, no shape written
// here. test/db/response-shapes.test.ts calls each function and checks its JSON against that route's schema.
import type { Database as Generated, Json } from './database.types.ts';
import type { paths } from './schema.d.ts';

export type { Json } from './database.types.ts';

type Functions = Generated['public']['Functions'];
/** The functions whose result is jsonb. */
type JsonFunction = { [F in keyof Functions]: Json extends Functions[F]['Returns'] ? F : never }[keyof Functions];

type Method = 'get' | 'post' | 'put' | 'delete';
/** A route as the route files name it, `'GET /feed'`: the method and the document's path without `/api`. */
export type Route = {
  [P in keyof paths]: {
    [M in Method]: paths[P][M] extends undefined ? never : `${Uppercase<M>} ${P extends `/api${infer R}` ? R : never}`;
  }[Method];
}[keyof paths];

/** The JSON a route answers with on success (200, or 201 for a create). */
type Answer<R> = R extends `${infer M} ${infer P}`
  ? paths[`/api${P}` & keyof paths][Lowercase<M> & Method] extends infer Operation
    ? Operation extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body
    : Operation extends { responses: { 201: { content: { 'application/json': infer Body } } } } ? Body
    : never
  : never
  : never;

/**
 * Each jsonb function but two, the route that answers with its JSON and, when the route wraps it, the key it sits
 * under. A jsonb function missing here is a compile error (`satisfies`).
 */
export const rpcRoutes = {
  me: { route: 'GET /auth/user', under: 'profile' },
  update_profile: { route: 'PUT /user', under: 'profile' },
  reset_profile_picture: { route: 'PUT /resetprofilepicture', under: 'profile' },
  get_profile: { route: 'GET /{username}' },
  follow: { route: 'POST /{username}/follow' },
  follow_requests: { route: 'GET /follow_requests' },
  respond_follow_request: { route: 'POST /{username}/respond_follow' },
  followers: { route: 'GET /{username}/followers' },
  following: { route: 'GET /{username}/following' },
  remove_follower: { route: 'DELETE /{username}/follower' },
  set_close_friend: { route: 'POST /close_friends/{username}' },
  close_friends: { route: 'GET /close_friends' },
  block: { route: 'POST /{username}/block' },
  blocks: { route: 'GET /blocks' },
  report_user: { route: 'POST /{username}/report' },
  create_post: { route: 'POST /post/create' },
  get_post: { route: 'GET /post/{postId}' },
  edit_post: { route: 'PUT /post/{postId}' },
  like_post: { route: 'POST /post/{postId}/like' },
  post_likes: { route: 'GET /post/{postId}/likes' },
  report_post: { route: 'POST /post/{postId}/report' },
  user_posts: { route: 'GET /{username}/posts' },
  posts_by_day: { route: 'GET /date' },
  feed: { route: 'GET /feed' },
  search: { route: 'GET /search' },
  notifications: { route: 'GET /notifications' },
  read_notifications: { route: 'POST /notifications/read' },
  calendar: { route: 'GET /{username}/calendar' },
  delete_post: { route: 'DELETE /post/{postId}' },
  comment_post: { route: 'POST /post/{postId}/comment' },
  reply_comment: { route: 'POST /post/comment/{commentId}/reply' },
  get_comment: { route: 'GET /post/comment/{commentId}' },
  post_comments: { route: 'GET /post/{postId}/comments' },
  comment_replies: { route: 'GET /post/comment/{commentId}/replies' },
  like_comment: { route: 'POST /post/comment/{commentId}/like' },
  comment_likes: { route: 'GET /post/comment/{commentId}/likes' },
  report_comment: { route: 'POST /post/comment/{commentId}/report' },
  delete_comment: { route: 'DELETE /post/comment/{commentId}' },
  admin_reports: { route: 'GET /admin/reports' },
  admin_dismiss_report: { route: 'DELETE /admin/report/{reportId}' },
  admin_ban_user: { route: 'POST /admin/user/{username}/ban' },
  admin_ban_post: { route: 'POST /admin/post/{postId}/ban' },
  admin_bans: { route: 'GET /admin/bans' },
  admin_ban_history: { route: 'GET /admin/banHistory/{elementId}' },
  admin_ban_history_by_admin: { route: 'GET /admin/banHistoryByAdmin/{username}' },
  admin_delete_banned_post: { route: 'DELETE /admin/post/{postId}' },
  admin_delete_banned_user: { route: 'DELETE /admin/user/{username}' },
  mute: { route: 'POST /{username}/mute' },
  mutes: { route: 'GET /mutes' },
  my_sessions: { route: 'GET /user/sessions' },
  end_other_sessions: { route: 'POST /user/sessions/end_others' },
  end_session: { route: 'DELETE /user/sessions/{id}' },
  factor_recovery: { route: 'GET /user/mfa', under: 'recovery' },
  cancel_factor_recovery: { route: 'DELETE /user/mfa/recovery' },
  complete_factor_recovery: { route: 'POST /user/mfa/recovery/complete' },
} as const satisfies Record<Exclude<JsonFunction, keyof Unrouted>, { route: Route; under?: string }>;

/** The two whose JSON no route answers with: the facade checks a registration and a factor owner's proof itself. */
interface Unrouted {
  /** supabase/schemas/16_api_account.sql: raises the precise error unless the username is free. */
  check_registration: { username: string; available: true };
  /** supabase/schemas/31_second_factor_checks.sql: a refusal is answered, shaped as PostgREST shapes an error. */
  prove_factor_owner: { proved: true; factor_id: string } | { code: string; hint: string; message: string };
}

type Results =
  & {
    [F in keyof typeof rpcRoutes]: (typeof rpcRoutes)[F] extends { route: infer R; under: infer K }
      ? Answer<R>[K & keyof Answer<R>]
      : Answer<(typeof rpcRoutes)[F]['route']>;
  }
  & Unrouted;

/** The generated `Database`, each jsonb function's `Returns` its JSON's real shape. */
export type Database = {
  [S in keyof Generated]: S extends 'public' ? {
      [K in keyof Generated['public']]: K extends 'Functions' ? {
          [F in keyof Functions]: {
            [Key in keyof Functions[F]]: Key extends 'Returns'
              ? F extends keyof Results ? Results[F] : Functions[F][Key]
              : Functions[F][Key];
          };
        }
        : Generated['public'][K];
    }
    : Generated[S];
};

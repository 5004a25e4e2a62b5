// The app's route groups in the order app.ts mounts them, each with the routes its module serves: the app
// registers these paths at start and imports a group's module with its first request (lib/lazy-routes.ts).
// test/api/route-groups.test.ts checks each list against its router.
import type { RouteGroup } from '../lib/lazy-routes.ts';

export const routeGroups: RouteGroup[] = [
  {
    load: () => import('./health.ts').then((m) => m.health),
    routes: ['GET /health'],
  },
  {
    load: () => import('./auth.ts').then((m) => m.auth),
    routes: [
      'POST /auth/register',
      'POST /auth/confirm_email',
      'POST /auth/login',
      'GET /auth/google',
      'POST /auth/refresh',
      'POST /auth/forget_password',
      'POST /auth/login_code',
      'POST /auth/login_with_code',
      'POST /auth/reset_password',
      'POST /auth/resend_code',
      'GET /auth/user',
      'POST /auth/requestdeletecode',
      'POST /auth/logout',
    ],
  },
  {
    load: () => import('./account-undo.ts').then((m) => m.accountUndo),
    routes: ['POST /auth/undo', 'GET /auth/undo'],
  },
  {
    load: () => import('./account.ts').then((m) => m.account),
    routes: ['PUT /user', 'PUT /resetprofilepicture', 'DELETE /user'],
  },
  {
    load: () => import('./sessions.ts').then((m) => m.sessions),
    routes: ['GET /user/sessions', 'DELETE /user/sessions/:id', 'POST /user/sessions/end_others'],
  },
  {
    load: () => import('./mfa.ts').then((m) => m.mfa),
    routes: [
      'GET /user/mfa',
      'POST /user/mfa/totp',
      'POST /user/mfa/totp/code',
      'POST /user/mfa/:factorId/verify',
      'POST /user/mfa/recovery/code',
      'POST /user/mfa/recovery',
      'DELETE /user/mfa/recovery',
      'POST /user/mfa/recovery/complete',
      'DELETE /user/mfa/:factorId',
    ],
  },
  {
    load: () => import('./export.ts').then((m) => m.accountExport),
    routes: ['GET /user/export'],
  },
  {
    load: () => import('./posts.ts').then((m) => m.posts),
    routes: [
      'POST /post/create',
      'GET /post/:postId',
      'PUT /post/:postId',
      'DELETE /post/:postId',
      'POST /post/:postId/like',
      'GET /post/:postId/likes',
      'POST /post/:postId/report',
    ],
  },
  {
    load: () => import('./comments.ts').then((m) => m.comments),
    routes: [
      'POST /post/:postId/comment',
      'GET /post/:postId/comments',
      'GET /post/comment/:commentId',
      'GET /post/comment/:commentId/replies',
      'POST /post/comment/:commentId/reply',
      'POST /post/comment/:commentId/like',
      'GET /post/comment/:commentId/likes',
      'DELETE /post/comment/:commentId',
      'POST /post/comment/:commentId/report',
    ],
  },
  {
    load: () => import('./admin.ts').then((m) => m.admin),
    routes: [
      'GET /admin/reports',
      'DELETE /admin/report/:reportId',
      'GET /admin/bans',
      'GET /admin/banHistory/:elementId',
      'GET /admin/banHistoryByAdmin/:username',
      'POST /admin/user/:username/ban',
      'DELETE /admin/user/:username',
      'POST /admin/post/:postId/ban',
      'DELETE /admin/post/:postId',
    ],
  },
  {
    load: () => import('./feed.ts').then((m) => m.feed),
    routes: ['GET /feed'],
  },
  {
    load: () => import('./notifications.ts').then((m) => m.notifications),
    routes: ['GET /notifications', 'POST /notifications/read'],
  },
  {
    load: () => import('./search.ts').then((m) => m.search),
    routes: ['GET /search'],
  },
  // Supabase Auth's Send Email hook: outside the OpenAPI document, for Auth alone.
  {
    load: () => import('./send-email-hook.ts').then((m) => m.sendEmailHook),
    routes: ['POST /hooks/send_email'],
  },
  {
    load: () => import('./docs.ts').then((m) => m.docs),
    routes: ['GET /docs', 'GET /docs/swagger-ui-dist/:file{swagger-ui\\.css|swagger-ui-bundle\\.js}'],
  },
  // Last: /{username} would otherwise catch the fixed paths above (/docs included; app.ts registers GET
  // /openapi.json before every group).
  {
    load: () => import('./users.ts').then((m) => m.users),
    routes: [
      'GET /follow_requests',
      'GET /close_friends',
      'POST /close_friends/:username',
      'GET /blocks',
      'GET /mutes',
      'GET /date',
      'GET /:username',
      'POST /:username/follow',
      'POST /:username/respond_follow',
      'DELETE /:username/follower',
      'GET /:username/followers',
      'GET /:username/following',
      'POST /:username/block',
      'POST /:username/mute',
      'POST /:username/report',
      'GET /:username/calendar',
      'GET /:username/posts',
    ],
  },
];

/**
 * Every group's router, imported and mounted under /api in order, beside the security scheme the routes name:
 * what the OpenAPI document is built from (app.ts, with the first GET /openapi.json) and the tests read.
 */
export async function documentedRoutes() {
  const { createRouter } = await import('../lib/router.ts');
  const app = createRouter().basePath('/api');
  for (const group of routeGroups) app.route('/', await group.load());
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  return app;
}

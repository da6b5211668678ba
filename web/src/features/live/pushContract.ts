/**
 * The live-push contract between the gateway (socket.io) and the SPA: web/src/features/live/README.md.
 * Its one definition is gateway/src/live/pushContract.ts, reached through the `#push-contract` alias
 * (web/tsconfig.json paths, resolve.alias in web/vite.config.ts and web/vitest.config.ts).
 */
export * from '#push-contract';

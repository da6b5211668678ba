import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

const root = fileURLToPath(new URL('.', import.meta.url));
/** The one live-push contract, the gateway's (gateway/src/live/pushContract.ts says why). */
const pushContract = fileURLToPath(new URL('../gateway/src/live/pushContract.ts', import.meta.url));
/** The libraries every route needs; any other dependency goes in the chunk of the screen that imports it. */
const FIRST_ROUTE_VENDOR =
  /node_modules\/(react|react-dom|scheduler|react-router|react-router-dom|react-redux|redux|@reduxjs\/toolkit(?!\/dist\/query)|immer|reselect|redux-saga|@redux-saga\/[^/]+|use-sync-external-store|cookie|set-cookie-parser)\//;
/**
 * The app's own small modules the first route shares with lazily loaded screens: one chunk rather than one
 * each (a chunk per module costs the first route its own request, preload entry and gzip frame).
 */
const FIRST_ROUTE_SHARED =
  /\/src\/(app\/(errors|apiClient)\.ts|features\/live\/liveSlice\.ts|features\/auth\/authApi\.ts)$/;
const api = process.env.MERIDIAN_API_URL ?? 'http://localhost:8080';

export default defineConfig({
  root,
  resolve: { alias: { '#push-contract': pushContract } },
  plugins: [
    react(),
    // Every text file of the build also as <file>.br and <file>.gz (maximum quality, once at build time):
    // the gateway (gateway/src/http/spa.ts) and nginx (gzip_static) send them as they are. A compressed
    // copy that is not smaller is not written; vite's manifest (.vite/, never served) is left alone.
    compression({
      algorithms: ['brotliCompress', 'gzip'],
      include: /\.(html|css|js|mjs|json|svg|txt|xml|webmanifest)$/,
      exclude: /(^|\/)\.vite\//,
      skipIfLargerOrEqual: true,
      logLevel: 'silent',
    }),
  ],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    // No source maps in production: nothing under dist is served that the public should not read
    // (the gateway and nginx also answer 404 to any *.map).
    sourcemap: false,
    // .vite/manifest.json: which chunks each entry and screen loads (bench/spa.ts, the size budget test).
    manifest: true,
    // One long-cached vendor chunk with only what the first route needs (react, the router, redux and
    // redux-saga); socket.io-client, react-toastify and the screens are chunks loaded on demand.
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'vendor', test: FIRST_ROUTE_VENDOR },
            { name: 'shared', test: FIRST_ROUTE_SHARED },
          ],
        },
      },
    },
  },
  server: {
    port: 5173,
    proxy: {
      '/api': { target: api, changeOrigin: false },
      '/socket.io': { target: api, ws: true, changeOrigin: false },
    },
  },
  preview: {
    port: 4173,
    proxy: {
      '/api': { target: api, changeOrigin: false },
      '/socket.io': { target: api, ws: true, changeOrigin: false },
    },
  },
});

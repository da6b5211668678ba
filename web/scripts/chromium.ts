/**
 * The flags every headless Chromium in this repository runs with: web/scripts/screenshots.ts and the browser
 * suites (tests/support/browser.ts). No DOM types here, so the servers' tsconfig can read it too (bench/ reaches
 * it through tests/support/browser.ts).
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

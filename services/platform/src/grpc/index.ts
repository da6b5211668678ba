export * from './server.js';
export * from './client.js';
export * from './status.js';
export * from './health.js';

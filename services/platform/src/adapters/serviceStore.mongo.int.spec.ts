import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import type { StartedMongoDBContainer } from '@testcontainers/mongodb';
import { createMongoServiceStore } from './serviceStore.mongo.js';
import { describeServiceStoreConformance } from '../testing/serviceStore.conformance.js';
import { detectContainerRuntime } from '../testing/containers.js';

// MongoDB (single-node replica set) through testcontainers — skipped, with the reason printed, when
// this machine has no container runtime.
const runtime = await detectContainerRuntime();
if (!runtime.available) console.log(`[skip] MongoDB ServiceStore conformance: no container runtime (${runtime.reason})`);

describe.skipIf(!runtime.available)('MongoDB ServiceStore (testcontainers)', () => {
  let container: StartedMongoDBContainer;
  let url = '';
  beforeAll(async () => {
    const { MongoDBContainer } = await import('@testcontainers/mongodb');
    container = await new MongoDBContainer('mongo:8.0').start();
    url = `${container.getConnectionString()}/?directConnection=true`;
  }, 180_000);
  afterAll(async () => {
    await container?.stop();
  });

  describeServiceStoreConformance('MongoDB replica set', {
    create: () => createMongoServiceStore({ url, database: `t_${randomUUID().replace(/-/g, '')}` }),
    location: async () => {
      const database = `t_${randomUUID().replace(/-/g, '')}`;
      return { open: () => createMongoServiceStore({ url, database }) };
    },
  });
});

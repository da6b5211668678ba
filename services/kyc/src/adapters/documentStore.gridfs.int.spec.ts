import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import type { StartedMongoDBContainer } from '@testcontainers/mongodb';
import { detectContainerRuntime } from '@meridian/platform/testing/containers';
import { describeDocumentStoreConformance } from '../testing/documentStore.conformance.js';
import { createGridFsDocumentStore } from './documentStore.gridfs.js';

// MongoDB GridFS through testcontainers — skipped, with the reason printed, when this machine has no
// container runtime.
const runtime = await detectContainerRuntime();
if (!runtime.available)
  console.log(`[skip] GridFS DocumentStore conformance: no container runtime (${runtime.reason})`);

describe.skipIf(!runtime.available)('GridFS DocumentStore (testcontainers)', () => {
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

  describeDocumentStoreConformance('MongoDB GridFS', {
    create: () => createGridFsDocumentStore({ url, database: `t_${randomUUID().replace(/-/g, '')}` }),
  });
});

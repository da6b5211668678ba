import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { describeDocumentStoreConformance } from '../testing/documentStore.conformance.js';
import { createFsDocumentStore } from './documentStore.fs.js';

const dirs: Array<{ remove(): void }> = [];
afterAll(() => dirs.forEach((d) => d.remove()));
const freshRoot = () => {
  const d = tempDir('meridian-kyc-docs-');
  dirs.push(d);
  return join(d.path, 'kyc');
};

describeDocumentStoreConformance('files under DATA_DIR/kyc', {
  create: async () => createFsDocumentStore({ root: freshRoot() }),
});

describe('files under DATA_DIR/kyc: names on disk', () => {
  it('never uses anything the user sent in a path (hashed folder, generated file names)', async () => {
    const root = freshRoot();
    const store = createFsDocumentStore({ root });
    const userId = '../../evil user';
    const id = '4f2a7c1e-0b7d-4c5e-9a51-1d2e3f4a5b6c';
    async function* one() {
      yield Buffer.from('bytes');
    }
    await store.save({ id, userId, side: 'front', contentType: 'image/png' }, one());
    const [folder] = readdirSync(root);
    expect(folder).toMatch(/^[0-9a-f]{64}$/);
    expect(readdirSync(join(root, folder!)).sort()).toEqual([`${id}.bin`, `${id}.json`]);
  });
});

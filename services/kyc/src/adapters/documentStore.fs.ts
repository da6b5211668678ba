/**
 * Embedded DocumentStore: files under `<root>` (DATA_DIR/kyc), never served statically.
 *   <root>/<sha256(userId) hex>/<documentId>.bin   the bytes (mode 0600)
 *   <root>/<sha256(userId) hex>/<documentId>.json  { id, userId, side, contentType, size }
 * Names are generated (the folder is a hash, the file a service-made uuid): nothing the user sent
 * becomes part of a path. Bytes are written to a temporary file and renamed into place only when the
 * source ended without error.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DocumentMeta, DocumentStore } from '../app/ports.js';

const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function assertDocumentId(id: string): void {
  if (!ID.test(id)) throw new Error('invalid document id');
}

export function createFsDocumentStore(options: { root: string }): DocumentStore {
  const { root } = options;
  const dirOf = (userId: string) => join(root, createHash('sha256').update(userId, 'utf8').digest('hex'));
  const exists = async (path: string) =>
    stat(path).then(
      () => true,
      () => false,
    );

  return {
    async save(meta, source) {
      assertDocumentId(meta.id);
      const dir = dirOf(meta.userId);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const tmp = join(dir, `.${meta.id}.${randomUUID()}.tmp`);
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      try {
        await pipeline(Readable.from(source), counter, createWriteStream(tmp, { mode: 0o600, flags: 'wx' }));
        const stored: DocumentMeta & { size: number } = {
          id: meta.id,
          userId: meta.userId,
          side: meta.side,
          contentType: meta.contentType,
          size,
        };
        await writeFile(join(dir, `${meta.id}.json`), JSON.stringify(stored), { mode: 0o600 });
        await rename(tmp, join(dir, `${meta.id}.bin`));
        return { size };
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        await unlink(join(dir, `${meta.id}.json`)).catch(() => undefined);
        throw err;
      }
    },

    async open(userId, id) {
      if (!ID.test(id)) return null;
      const dir = dirOf(userId);
      let stored: DocumentMeta & { size: number };
      try {
        stored = JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as DocumentMeta & {
          size: number;
        };
      } catch {
        return null;
      }
      if (stored.userId !== userId || !(await exists(join(dir, `${id}.bin`)))) return null;
      return {
        meta: { id: stored.id, userId: stored.userId, side: stored.side, contentType: stored.contentType },
        size: stored.size,
        stream: createReadStream(join(dir, `${id}.bin`)),
      };
    },

    async list(userId) {
      const names = await readdir(dirOf(userId)).catch(() => [] as string[]);
      return names
        .filter((n) => n.endsWith('.bin'))
        .map((n) => n.slice(0, -'.bin'.length))
        .sort();
    },

    async delete(userId, id) {
      if (!ID.test(id)) return;
      const dir = dirOf(userId);
      await rm(join(dir, `${id}.bin`), { force: true });
      await rm(join(dir, `${id}.json`), { force: true });
    },

    async deleteAllOf(userId) {
      const dir = dirOf(userId);
      const count = (await readdir(dir).catch(() => [] as string[])).filter((n) => n.endsWith('.bin')).length;
      await rm(dir, { recursive: true, force: true });
      return count;
    },

    async close() {},
  };
}

/**
 * Embedded PrivateFileStore: files under `<root>` (a folder of DATA_DIR), never served statically.
 *   <root>/<sha256(userId) hex>/<id>.bin   the bytes (mode 0600)
 *   <root>/<sha256(userId) hex>/<id>.json  the metadata and the size
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
import { assertFileId, isFileId, type PrivateFileStore, type StoredFileMeta } from './privateFileStore.js';

export function createFsFileStore<M extends StoredFileMeta>(options: { root: string }): PrivateFileStore<M> {
  const { root } = options;
  const dirOf = (userId: string) => join(root, createHash('sha256').update(userId, 'utf8').digest('hex'));
  const exists = async (path: string) =>
    stat(path).then(
      () => true,
      () => false,
    );

  return {
    async save(meta, source) {
      assertFileId(meta.id);
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
        await writeFile(join(dir, `${meta.id}.json`), JSON.stringify({ ...meta, size }), { mode: 0o600 });
        await rename(tmp, join(dir, `${meta.id}.bin`));
        return { size };
      } catch (err) {
        await unlink(tmp).catch(() => undefined);
        await unlink(join(dir, `${meta.id}.json`)).catch(() => undefined);
        throw err;
      }
    },

    async open(userId, id) {
      if (!isFileId(id)) return null;
      const dir = dirOf(userId);
      let stored: M & { size: number };
      try {
        stored = JSON.parse(await readFile(join(dir, `${id}.json`), 'utf8')) as M & { size: number };
      } catch {
        return null;
      }
      if (stored.userId !== userId || !(await exists(join(dir, `${id}.bin`)))) return null;
      const { size, ...meta } = stored;
      return { meta: meta as unknown as M, size, stream: createReadStream(join(dir, `${id}.bin`)) };
    },

    async list(userId) {
      const names = await readdir(dirOf(userId)).catch(() => [] as string[]);
      return names
        .filter((n) => n.endsWith('.bin'))
        .map((n) => n.slice(0, -'.bin'.length))
        .sort();
    },

    async delete(userId, id) {
      if (!isFileId(id)) return;
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

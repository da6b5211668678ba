/**
 * The ONE conformance suite of the DocumentStore port, run against every adapter
 * (files: adapters/documentStore.fs.int.spec.ts; GridFS: adapters/documentStore.gridfs.int.spec.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentMeta, DocumentStore } from '../app/ports.js';

async function* chunks(...parts: Buffer[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield p;
}

async function* failing(after: Buffer, error: Error): AsyncGenerator<Buffer> {
  yield after;
  throw error;
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(parts);
}

export function describeDocumentStoreConformance(
  name: string,
  factory: { create: () => Promise<DocumentStore> },
): void {
  describe(`DocumentStore conformance: ${name}`, () => {
    let store: DocumentStore;
    let alice: string;
    let bob: string;
    const meta = (
      userId: string,
      side: DocumentMeta['side'] = 'front',
      contentType = 'image/png',
    ): DocumentMeta => ({
      id: randomUUID(),
      userId,
      side,
      contentType,
    });

    beforeEach(async () => {
      store = await factory.create();
      alice = `alice-${randomUUID()}`;
      bob = `bob-${randomUUID()}`;
    });
    afterEach(async () => {
      await store.close();
    });

    it('stores streamed bytes and gives them back with their meta and size', async () => {
      const m = meta(alice, 'back', 'application/pdf');
      const a = Buffer.from('%PDF-1.7 first part ');
      const b = Buffer.alloc(300_000, 7);
      await expect(store.save(m, chunks(a, b))).resolves.toEqual({ size: a.length + b.length });
      const opened = await store.open(alice, m.id);
      expect(opened?.meta).toEqual(m);
      expect(opened?.size).toBe(a.length + b.length);
      expect((await readAll(opened!.stream)).equals(Buffer.concat([a, b]))).toBe(true);
      expect(await store.list(alice)).toEqual([m.id]);
    });

    it('never opens a document for another user, nor an unknown id', async () => {
      const m = meta(alice);
      await store.save(m, chunks(Buffer.from('png bytes')));
      expect(await store.open(bob, m.id)).toBeNull();
      expect(await store.open(alice, randomUUID())).toBeNull();
      expect(await store.open(alice, '../../etc/passwd')).toBeNull();
    });

    it('keeps nothing when the source fails mid-stream, and rejects with its error', async () => {
      const m = meta(alice);
      const error = new Error('File size must be less than 10MB.');
      await expect(store.save(m, failing(Buffer.alloc(100_000, 1), error))).rejects.toThrow(error.message);
      expect(await store.open(alice, m.id)).toBeNull();
      expect(await store.list(alice)).toEqual([]);
    });

    it('refuses an id that could name a path', async () => {
      await expect(store.save({ ...meta(alice), id: '../evil' }, chunks(Buffer.from('x')))).rejects.toThrow();
      expect(await store.list(alice)).toEqual([]);
    });

    it('deletes one document', async () => {
      const keep = meta(alice, 'front');
      const drop = meta(alice, 'back');
      await store.save(keep, chunks(Buffer.from('keep')));
      await store.save(drop, chunks(Buffer.from('drop')));
      await store.delete(alice, drop.id);
      await store.delete(alice, drop.id);
      await store.delete(bob, keep.id); // not bob's: untouched
      expect(await store.list(alice)).toEqual([keep.id]);
      expect(await store.open(alice, drop.id)).toBeNull();
    });

    it("erases all of a user's documents, idempotently, and only theirs", async () => {
      await store.save(meta(alice, 'front'), chunks(Buffer.from('a1')));
      await store.save(meta(alice, 'back'), chunks(Buffer.from('a2')));
      const bobs = meta(bob);
      await store.save(bobs, chunks(Buffer.from('b1')));
      expect(await store.deleteAllOf(alice)).toBe(2);
      expect(await store.deleteAllOf(alice)).toBe(0);
      expect(await store.list(alice)).toEqual([]);
      expect(await store.list(bob)).toEqual([bobs.id]);
      expect((await readAll((await store.open(bob, bobs.id))!.stream)).toString()).toBe('b1');
    });
  });
}

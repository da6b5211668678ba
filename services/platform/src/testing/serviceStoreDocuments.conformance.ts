import { expect, it } from 'vitest';
import { DomainError } from '../eventSourcing/errors.js';
import { decodePageCursor, findPage } from '../ports/pages.js';
import { type FreshStore } from './serviceStoreFixtures.js';

/** The ServiceStore conformance cases of documents: put, replace, delete, find, count, many reads, keyset pages. */
export function describeServiceStoreDocumentCases(fresh: FreshStore): void {
  it('stores, replaces, deletes and finds documents (equality filters, order, limit, offset, count)', async () => {
    const store = await fresh();
    const users = [
      { id: 'u1', email: 'a@x.io', role: 'admin', age: 40, verified: true, team: null },
      { id: 'u2', email: 'b@x.io', role: 'subscriber', age: 25, verified: false, team: 'red' },
      { id: 'u3', email: 'c@x.io', role: 'subscriber', age: 31, verified: true, team: 'red' },
      { id: 'u4', email: 'd@x.io', role: 'subscriber', age: 19, verified: true, team: 'blue' },
      { id: 'u5', email: 'e@x.io', role: 'author', age: 31, verified: false, team: null },
    ];
    await store.transaction(async (tx) => {
      for (const u of users) await tx.put('users', u.id, u);
      await tx.put('other', 'u1', { id: 'u1', role: 'subscriber' });
    });
    expect(await store.get('users', 'u2')).toEqual(users[1]);
    expect(await store.get('users', 'nope')).toBeNull();

    const ids = (docs: Array<{ id: string }>) => docs.map((d) => d.id);
    expect(ids(await store.find('users', { where: { role: 'subscriber' } })).sort()).toEqual([
      'u2',
      'u3',
      'u4',
    ]);
    expect(ids(await store.find('users', { where: { role: 'subscriber', verified: true } })).sort()).toEqual([
      'u3',
      'u4',
    ]);
    expect(ids(await store.find('users', { where: { age: 31 } })).sort()).toEqual(['u3', 'u5']);
    expect(ids(await store.find('users', { where: { age: '31' } }))).toEqual([]);
    expect(ids(await store.find('users', { where: { verified: false } })).sort()).toEqual(['u2', 'u5']);
    expect(ids(await store.find('users', { where: { team: null } })).sort()).toEqual(['u1', 'u5']);
    expect(ids(await store.find('users', { orderBy: { field: 'age', direction: 'asc' } }))).toEqual([
      'u4',
      'u2',
      'u3',
      'u5',
      'u1',
    ]);
    expect(
      ids(await store.find('users', { orderBy: { field: 'email', direction: 'desc' }, limit: 2 })),
    ).toEqual(['u5', 'u4']);
    expect(
      ids(
        await store.find('users', {
          where: { role: 'subscriber' },
          orderBy: { field: 'age', direction: 'desc' },
          limit: 2,
          offset: 1,
        }),
      ),
    ).toEqual(['u2', 'u4']);
    expect(
      ids(await store.find('users', { orderBy: { field: 'age', direction: 'asc' }, offset: 3 })),
    ).toEqual(['u5', 'u1']);
    expect(await store.count('users')).toBe(5);
    expect(await store.count('users', { role: 'subscriber' })).toBe(3);
    expect(await store.count('other')).toBe(1);
    expect(await store.count('empty')).toBe(0);

    await store.transaction(async (tx) => {
      await tx.put('users', 'u2', { ...users[1], role: 'author' });
      await tx.delete('users', 'u4');
    });
    expect(await store.get('users', 'u2')).toMatchObject({ role: 'author' });
    expect(await store.get('users', 'u4')).toBeNull();
    expect(await store.count('users', { role: 'subscriber' })).toBe(1);
  });

  it('reads many documents at once in the order asked, null where none, seeing the open transaction', async () => {
    const store = await fresh();
    await store.transaction(async (tx) => {
      for (let i = 0; i < 1_200; i++) await tx.put('many', `d${i}`, { i });
      await tx.put('other', 'd1', { i: -1 });
    });
    expect(await store.getMany('many', [])).toEqual([]);
    expect(await store.getMany('many', ['d7', 'nope', 'd1', 'd7'])).toEqual([
      { i: 7 },
      null,
      { i: 1 },
      { i: 7 },
    ]);
    // more ids than one statement takes, in the order given
    const ids = Array.from({ length: 1_200 }, (_, i) => `d${1_199 - i}`);
    expect((await store.getMany<{ i: number }>('many', ids)).map((d) => d?.i)).toEqual(
      ids.map((id) => Number(id.slice(1))),
    );
    await store.transaction(async (tx) => {
      await tx.put('many', 'd2', { i: 'changed' });
      await tx.delete('many', 'd3');
      await tx.put('many', 'new', { i: 'new' });
      expect(await tx.getMany('many', ['d2', 'd3', 'new', 'd4'])).toEqual([
        { i: 'changed' },
        null,
        { i: 'new' },
        { i: 4 },
      ]);
    });
    expect(await store.getMany('many', ['d3', 'new'])).toEqual([null, { i: 'new' }]);
  });

  it('pages by keyset under an equality filter on an index (findPage), ties on the order value by id', async () => {
    const store = await fresh();
    await store.ensureIndex?.('queue', ['status', 'position']);
    const put = (id: string, status: string, position: number) =>
      store.transaction((tx) => tx.put('queue', id, { id, status, position }));
    // positions repeat (a tie is broken by the id), and other statuses are interleaved
    const items = [
      ['q1', 1],
      ['q3', 2],
      ['q2', 2],
      ['q4', 3],
      ['q5', 5],
    ] as const;
    for (const [id, position] of items) {
      await put(id, 'Pending', position);
      await put(`x-${id}`, 'Done', position);
    }
    const query = {
      where: { status: 'Pending' },
      orderBy: { field: 'position', direction: 'asc' as const },
      idOf: (d: { id: string }) => d.id,
    };
    const expected = ['q1', 'q2', 'q3', 'q4', 'q5'];
    expect((await findPage<{ id: string }>(store, 'queue', query, null)).items.map((d) => d.id)).toEqual(
      expected,
    );
    const seen: string[] = [];
    let page = await findPage<{ id: string }>(store, 'queue', query, { limit: 2, after: null });
    seen.push(...page.items.map((d) => d.id));
    await put('q6', 'Pending', 9); // added between pages: comes last
    await store.transaction((tx) => tx.delete('queue', 'q3')); // the next page's first: gone
    while (page.nextCursor) {
      page = await findPage<{ id: string }>(store, 'queue', query, {
        limit: 2,
        after: decodePageCursor(page.nextCursor),
      });
      seen.push(...page.items.map((d) => d.id));
    }
    expect(seen).toEqual(['q1', 'q2', 'q4', 'q5', 'q6']);
    const desc = { ...query, orderBy: { field: 'position', direction: 'desc' as const } };
    const first = await findPage<{ id: string }>(store, 'queue', desc, { limit: 3, after: null });
    expect(first.items.map((d) => d.id)).toEqual(['q6', 'q5', 'q4']);
    const rest = await findPage<{ id: string }>(store, 'queue', desc, {
      limit: 3,
      after: decodePageCursor(first.itemCursors![1]!),
    });
    expect(rest.items.map((d) => d.id)).toEqual(['q4', 'q2', 'q1']);
    expect(rest.nextCursor).toBe('');
  });

  it('refuses operator-like field names and non-scalar filter values', async () => {
    const store = await fresh();
    await store.transaction((tx) => tx.put('users', 'u1', { email: 'a@x.io' }));
    await expect(store.find('users', { where: { $where: 'x' } as never })).rejects.toBeInstanceOf(
      DomainError,
    );
    await expect(store.find('users', { where: { email: { $gt: '' } } as never })).rejects.toBeInstanceOf(
      DomainError,
    );
    await expect(
      store.find('users', { orderBy: { field: "a') --", direction: 'asc' } }),
    ).rejects.toBeInstanceOf(DomainError);
    await expect(store.count('users', { "email') OR 1=1 --": 'x' })).rejects.toBeInstanceOf(DomainError);
    await expect(store.get('system.users', 'x')).rejects.toBeInstanceOf(DomainError);
    await expect(store.transaction((tx) => tx.put('a$b', 'x', {}))).rejects.toBeInstanceOf(DomainError);
  });
}

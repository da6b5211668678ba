// `make dlq` and `make dlq-redrive` (scripts/dlq.ts) over the standalone's in-process bus on disk: a dead letter
// is listed with its topic, group and reason; a redrive puts it back and the group handles it; the Kafka side of
// the same operations is in the bus conformance suite (platform adapters/eventBus.kafka.int.spec.ts).
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createInProcEventBus } from '@meridian/platform/adapters/eventBus.inproc';
import { PermanentEventError, deadLetterTopicOf } from '@meridian/platform/ports/eventBus';
import { busEvent } from '@meridian/platform/testing/eventBus.conformance';
import { tempDir } from '@meridian/platform/testing/tempDir';
import { waitFor } from '@meridian/platform/testing/waitFor';
import { main } from '../scripts/dlq.js';

const dir = tempDir('meridian-dlq-');
afterAll(() => dir.remove());

const capture = () => {
  const lines: string[] = [];
  return { lines, out: { log: (l: string) => void lines.push(l), error: (l: string) => void lines.push(l) } };
};

describe('scripts/dlq.ts', () => {
  it('lists the dead letters with their reason, redrives them, and says when there is nothing', async () => {
    const env = { DATA_DIR: dir.path };
    const topic = 'meridian.identity.events';
    const bus = createInProcEventBus({ path: join(dir.path, 'bus.sqlite') });
    const refused = busEvent('user-1', 1, { email: 'sealed' }, 'UserRegistered');
    let fixed = false;
    const handled: string[] = [];
    const sub = await bus.subscribe({
      topic,
      group: 'kyc',
      handler: async (e) => {
        if (!fixed) throw new PermanentEventError('no such plan');
        handled.push(e.id);
      },
    });
    await bus.publish(topic, [refused]);
    await waitFor(() => bus.size(deadLetterTopicOf(topic)) === 1, { message: 'dead-lettered' });

    const listed = capture();
    expect(await main(['list'], env, listed.out)).toBe(0);
    expect(listed.lines[0]).toBe(`${topic}: 1 dead letter(s), 1 not redriven`);
    expect(listed.lines[1]).toContain(`${refused.id}  UserRegistered  group kyc  permanent: no such plan`);

    fixed = true;
    const redriven = capture();
    expect(await main(['redrive', topic], env, redriven.out)).toBe(0);
    expect(redriven.lines).toEqual([`Redriven to ${topic}: ${refused.id}`]);
    await waitFor(() => handled.length === 1, { message: 'the redriven event handled' });
    expect(handled).toEqual([refused.id]);

    const after = capture();
    expect(await main(['list', topic], env, after.out)).toBe(0);
    expect(after.lines[0]).toBe(`${topic}: 1 dead letter(s), 0 not redriven`);
    expect(after.lines[1]).toMatch(/\(redriven \d{4}-/);
    const again = capture();
    expect(await main(['redrive', topic], env, again.out)).toBe(1);
    expect(again.lines).toEqual([`Nothing to redrive on ${topic}.`]);
    await sub.stop();
    await bus.close();
  });

  it('refuses a redrive without a topic, and says when there is no bus', async () => {
    const missing = capture();
    expect(await main(['list'], { DATA_DIR: join(dir.path, 'nothing') }, missing.out)).toBe(2);
    expect(missing.lines[0]).toMatch(/^No in-process bus at /);
    const bad = capture();
    expect(await main(['redrive'], { DATA_DIR: dir.path }, bad.out)).toBe(1);
    expect(bad.lines[0]).toMatch(/^redrive needs the topic/);
  });
});

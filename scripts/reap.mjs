// Ends what a test run of this checkout left running: Kafka brokers started from its .cache/kafka jars and
// services started from its sources (`node --import tsx <root>/services/.../main.ts`, the cluster's processes).
// A test file that fails while loading never runs its afterAll hooks, and vitest ends its workers without an
// 'exit' event, so their children can outlive the run. Linux only (/proc); elsewhere it does nothing.
import { readdirSync, readFileSync } from 'node:fs';

export function leftovers(root) {
  const marks = [`${root}/.cache/kafka/`, `${root}/services/`, `${root}/gateway/src/main.ts`];
  const found = [];
  let pids = [];
  try {
    pids = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return found;
  }
  for (const pid of pids) {
    if (pid === process.pid) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue;
    }
    const isBroker = cmd.includes('kafka.Kafka') && cmd.includes(marks[0]);
    const isService = cmd.includes('--import tsx') && (cmd.includes(marks[1]) || cmd.includes(marks[2]));
    if (isBroker || isService) found.push({ pid, cmd: cmd.slice(0, 160) });
  }
  return found;
}

/** SIGKILLs the leftovers; returns what it ended. */
export function reap(root) {
  const found = leftovers(root);
  for (const { pid } of found) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  return found;
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const root = process.argv[2] ?? new URL('..', import.meta.url).pathname.replace(/\/$/, '');
  for (const { pid, cmd } of reap(root)) console.log(`reaped ${pid}: ${cmd}`);
}

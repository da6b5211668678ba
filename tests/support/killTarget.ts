/**
 * kill -9 of the standalone target of ./standalone.ts. Its `child` is the tsx wrapper
 * (node_modules/.bin/tsx), which runs services/standalone/src/main.ts in a node process of its own and
 * only relays signals it can catch: a SIGKILL of the wrapper leaves the server running, orphaned, with
 * its port and SQLite files. The crash drills kill that server process itself (found through Linux
 * /proc), then the wrapper exits on its own.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { waitFor } from '@meridian/platform/testing/waitFor';
import type { RunningTarget } from './standalone.js';

/** Why the server process cannot be found here (no /proc), or null. */
export const killSkipReason = existsSync('/proc/self/stat')
  ? null
  : 'no /proc here: the server process under the tsx wrapper cannot be found';

/** The pids whose parent is `pid` (from /proc/<pid>/stat). */
export function childPidsOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) out.push(Number(name));
  }
  return out;
}

/** The pid of the node process running main.ts under the target's tsx wrapper. */
export async function serverPidOf(target: RunningTarget): Promise<number> {
  const wrapper = target.child.pid!;
  return waitFor(
    () => {
      const children = childPidsOf(wrapper);
      return children.length === 1 ? children[0] : null;
    },
    { timeoutMs: 10_000, message: `the one server process under tsx (pid ${wrapper})` },
  );
}

/** Resolves once the target's wrapper exited (after its server died). */
export function exitOf(target: RunningTarget): Promise<void> {
  const { child } = target;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((res) => child.once('exit', () => res()));
}

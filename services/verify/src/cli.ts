/**
 * `npx meridian-verify statement.json` (bin/meridian-verify.js runs this through tsx): verifies a statement
 * file and says so. Exit 0: intact; 1: not intact (the problems, the first broken link first); 2: the file
 * cannot be read or is not JSON.
 */
import { readFile } from 'node:fs/promises';
import { verifyStatement } from './index.js';

export const USAGE = 'Usage: meridian-verify <statement.json>';

type Out = { log(line: string): void; error(line: string): void };

export async function run(args: readonly string[], out: Out = console): Promise<number> {
  const path = args.find((a) => !a.startsWith('-'));
  if (!path || args.includes('--help') || args.includes('-h')) {
    out.error(USAGE);
    return 2;
  }
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    const reason = err instanceof SyntaxError ? 'not valid JSON' : (err as Error).message;
    out.error(`Cannot read ${path}: ${reason}`);
    return 2;
  }
  const result = await verifyStatement(json);
  if (result.intact) {
    out.log(`Statement intact: ${result.entries} entries, chain head ${result.head}`);
    return 0;
  }
  out.log('Statement NOT intact:');
  for (const problem of result.problems) out.log(`- ${problem}`);
  return 1;
}

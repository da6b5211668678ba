/**
 * `make verify-ledger`: the admin's check of the whole ledger (docs/statements.md). Opens the
 * standalone's ledger database (DATA_DIR, default ./data: ledger.sqlite; a running standalone may keep
 * writing, SQLite's WAL lets this read beside it) and walks every user's hash chain from genesis: each link
 * recomputed from its event and compared with the link stored on the event, the transactions read model,
 * the balances and the state rows (the same as the ledger's VerifyLedger RPC). Prints the counts and the
 * first broken link; exit 0 intact, 1 broken, 2 no ledger database.
 *
 *   tsx scripts/verify-ledger.ts [--data DIR]      (env DATA_DIR)
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSqliteServiceStore } from '@meridian/platform/adapters/serviceStore.sqlite';
import { verifyLedgerStore } from '@meridian/ledger/statements';

type Out = { log(line: string): void; error(line: string): void };

export async function main(args: readonly string[], out: Out = console): Promise<number> {
  const at = args.indexOf('--data');
  const dataDir = resolve(at >= 0 && args[at + 1] ? args[at + 1] : (process.env.DATA_DIR ?? 'data'));
  const path = join(dataDir, 'ledger.sqlite');
  if (!existsSync(path)) {
    out.error(`No ledger database at ${path} (set DATA_DIR or --data to the standalone's data folder)`);
    return 2;
  }
  const store = createSqliteServiceStore(path);
  try {
    const result = await verifyLedgerStore(store);
    const counts = `${result.usersChecked} users, ${result.entriesChecked} transactions`;
    if (result.intact) {
      out.log(`Ledger intact: ${counts} checked, every hash chain and balance recomputed from genesis.`);
      return 0;
    }
    const b = result.firstBroken!;
    out.log(`Ledger NOT intact (${counts} checked). First broken link:`);
    out.log(`  user ${b.userId}, link #${b.seq}${b.transactionId ? `, transaction ${b.transactionId}` : ''}`);
    out.log(`  ${b.problem}`);
    return 1;
  } finally {
    await store.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await main(process.argv.slice(2));

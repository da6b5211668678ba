/**
 * A plausible-format check for crypto wallet addresses (docs/architecture.md §3a: "wallet address checked for a
 * plausible format"). Pure. It checks the shape of the common networks' addresses, not their checksums
 * (base58check, bech32 and EIP-55 checksums would need hashing); an address that passes can still be
 * wrong, which is why the withdraw screen warns that withdrawals cannot be reversed.
 *
 * Accepted:
 * - Bitcoin: legacy / P2SH base58 `1…` or `3…` (26–35 characters); SegWit / Taproot bech32(m) `bc1…`
 *   (42–62 characters, one case)
 * - Ethereum and EVM chains (BNB Smart Chain, Polygon, …, USDT-ERC20): `0x` + 40 hex digits
 * - TRON (USDT-TRC20): `T` + 33 base58 characters
 * - Litecoin: `L…` / `M…` base58 (27–34 characters); `ltc1…` bech32 (43–63 characters)
 * - Dogecoin: `D` + 33 base58 characters
 * - XRP: `r` + 24–34 characters of the XRP alphabet
 * Anything else (other networks, spaces inside, URIs such as `bitcoin:…`, mixed-case bech32) is refused.
 */
export type WalletNetwork = 'bitcoin' | 'evm' | 'tron' | 'litecoin' | 'dogecoin' | 'xrp';

const B58 = '1-9A-HJ-NP-Za-km-z';
const BECH32 = '02-9ac-hj-np-z';
const XRP = 'rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz';

const FORMATS: ReadonlyArray<{ network: WalletNetwork; pattern: RegExp }> = [
  { network: 'bitcoin', pattern: new RegExp(`^[13][${B58}]{25,34}$`) },
  { network: 'bitcoin', pattern: new RegExp(`^bc1[${BECH32}]{39,59}$`) },
  { network: 'evm', pattern: /^0x[0-9a-fA-F]{40}$/ },
  { network: 'tron', pattern: new RegExp(`^T[${B58}]{33}$`) },
  { network: 'litecoin', pattern: new RegExp(`^[LM][${B58}]{26,33}$`) },
  { network: 'litecoin', pattern: new RegExp(`^ltc1[${BECH32}]{39,59}$`) },
  { network: 'dogecoin', pattern: new RegExp(`^D[${B58}]{33}$`) },
  { network: 'xrp', pattern: new RegExp(`^r[${XRP}]{24,34}$`) },
];

/** Bech32 is all lower case or all upper case; upper case is checked in lower case. */
const isBech32Prefixed = (text: string) => /^(bc1|ltc1)/i.test(text);

/** The network whose address format `address` has (after trimming), or null. */
export function walletNetworkOf(address: string): WalletNetwork | null {
  const text = address.trim();
  if (text.length === 0 || text.length > 100) return null;
  let candidate = text;
  if (isBech32Prefixed(text)) {
    if (text === text.toUpperCase()) candidate = text.toLowerCase();
    else if (text !== text.toLowerCase()) return null;
  }
  return FORMATS.find((f) => f.pattern.test(candidate))?.network ?? null;
}

export const isValidWalletAddress = (address: string) => walletNetworkOf(address) !== null;

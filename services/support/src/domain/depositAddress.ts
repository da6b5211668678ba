/**
 * Deposit addresses of the support address book: each is checked for its network's format and checksum before
 * support can hand it to an investor. Pure: no I/O, no clock; the codecs (base58, bech32/bech32m) come from
 * @scure/base and the hashes (SHA-256, Keccak-256) from @noble/hashes.
 *
 * Accepted, after trimming surrounding whitespace:
 * - bitcoin (mainnet only):
 *   - Base58Check (double SHA-256 checksum) of 25 bytes: version 0x00 (P2PKH, `1…`) or 0x05 (P2SH, `3…`);
 *   - segwit with the human-readable part `bc`, in one case: witness v0 with a 20- or 32-byte program and the
 *     bech32 checksum (BIP-173), or witness v1 (Taproot) with a 32-byte program and the bech32m checksum (BIP-350).
 *     Later witness versions have no meaning yet and are refused.
 * - ethereum and erc20 (ERC-20 tokens such as USDT and USDC live at Ethereum addresses): `0x` + 40 hex digits.
 *   All lower case or all upper case carries no checksum and is accepted; mixed case is an EIP-55 checksum and must
 *   match it (Keccak-256 of the lower-case hex). The zero address is refused: what is sent to it is burnt.
 * - tron (TRX and TRC-20 tokens such as USDT): Base58Check of 25 bytes with version 0x41 (which makes it 34
 *   characters starting with `T`).
 *
 * The address a check accepts comes back normalised: trimmed, bech32 in lower case (its canonical form) and
 * Ethereum addresses in their EIP-55 checksummed form, so the same address is always stored and shown the same way.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, bech32m } from '@scure/base';

export const DEPOSIT_NETWORKS = ['bitcoin', 'ethereum', 'erc20', 'tron'] as const;
export type DepositNetwork = (typeof DEPOSIT_NETWORKS)[number];

export const NETWORK_LABELS: Record<DepositNetwork, string> = {
  bitcoin: 'Bitcoin (BTC)',
  ethereum: 'Ethereum (ETH)',
  erc20: 'Ethereum ERC-20 token',
  tron: 'TRON (TRX / TRC-20)',
};

/** The longest text looked at: every accepted address is far shorter (a Taproot address has 62 characters). */
export const MAX_DEPOSIT_ADDRESS_LENGTH = 100;

export const ADDRESS_MESSAGES = {
  network: `Choose the deposit network: ${DEPOSIT_NETWORKS.map((n) => NETWORK_LABELS[n]).join(', ')}.`,
  notText: 'The deposit address must be text.',
  required: 'Enter the deposit address.',
  tooLong: `A deposit address has at most ${MAX_DEPOSIT_ADDRESS_LENGTH} characters.`,
  invalid: (label: string) => `This is not a valid ${label} address.`,
  checksum: (label: string) =>
    `This ${label} address fails its checksum: a character is wrong. Copy it again from the wallet.`,
  testnet: (label: string) => `This is a test network address, not a ${label} mainnet address.`,
  zeroAddress: (label: string) =>
    `The zero address burns whatever is sent to it: it cannot be a ${label} deposit address.`,
} as const;

export type AddressCheck = { ok: true; address: string } | { ok: false; message: string };

export const isDepositNetwork = (v: unknown): v is DepositNetwork =>
  (DEPOSIT_NETWORKS as readonly unknown[]).includes(v);

/** Checks `address` against the rules of `network`; never throws. */
export function checkDepositAddress(network: unknown, address: unknown): AddressCheck {
  if (!isDepositNetwork(network)) return refuse(ADDRESS_MESSAGES.network);
  if (typeof address !== 'string') return refuse(ADDRESS_MESSAGES.notText);
  const text = address.trim();
  if (text.length === 0) return refuse(ADDRESS_MESSAGES.required);
  if (text.length > MAX_DEPOSIT_ADDRESS_LENGTH) return refuse(ADDRESS_MESSAGES.tooLong);
  const label = NETWORK_LABELS[network];
  switch (network) {
    case 'bitcoin':
      return checkBitcoin(text, label);
    case 'ethereum':
    case 'erc20':
      return checkEthereum(text, label);
    case 'tron':
      return checkTron(text, label);
  }
}

const refuse = (message: string): AddressCheck => ({ ok: false, message });
const accept = (address: string): AddressCheck => ({ ok: true, address });

// --- Base58Check (Bitcoin legacy, TRON) ---

/** A Base58Check address: a version byte and a 20-byte hash (the checksum comes on top). */
const BASE58CHECK_PAYLOAD_BYTES = 21;
const CHECKSUM_BYTES = 4;

const BITCOIN_P2PKH = 0x00;
const BITCOIN_P2SH = 0x05;
const BITCOIN_TESTNET_VERSIONS = new Set([0x6f, 0xc4]); // testnet P2PKH (`m…`/`n…`) and P2SH (`2…`)
const TRON_VERSION = 0x41;

type Base58Read = { ok: true; version: number } | { ok: false; why: 'format' | 'checksum' };

/** Reads a Base58Check address: the payload (version byte + 20-byte hash) and its double SHA-256 checksum. */
function readBase58Check(text: string): Base58Read {
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(text);
  } catch {
    return { ok: false, why: 'format' }; // a character outside the base58 alphabet
  }
  if (bytes.length <= CHECKSUM_BYTES) return { ok: false, why: 'format' };
  const payload = bytes.subarray(0, bytes.length - CHECKSUM_BYTES);
  const checksum = bytes.subarray(bytes.length - CHECKSUM_BYTES);
  const expected = sha256(sha256(payload));
  if (!checksum.every((b, i) => b === expected[i])) return { ok: false, why: 'checksum' };
  if (payload.length !== BASE58CHECK_PAYLOAD_BYTES) return { ok: false, why: 'format' };
  return { ok: true, version: payload[0] };
}

const refuseRead = (why: 'format' | 'checksum', label: string) =>
  refuse(why === 'checksum' ? ADDRESS_MESSAGES.checksum(label) : ADDRESS_MESSAGES.invalid(label));

// --- Bitcoin ---

/** The 32 data characters of bech32, in the order of their 5-bit values. */
const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
/** A bech32 string's shape (checked in lower case): a human-readable part, the separator `1`, data characters. */
const BECH32_SHAPE = new RegExp(`^[a-z]{1,83}1[${BECH32_CHARSET}]{6,}$`);
const BITCOIN_HRP = 'bc';
const BITCOIN_TESTNET_HRPS = new Set(['tb', 'bcrt']);

function checkBitcoin(text: string, label: string): AddressCheck {
  const lower = text.toLowerCase();
  if (BECH32_SHAPE.test(lower)) return checkSegwit(text, lower, label);
  const read = readBase58Check(text);
  if (!read.ok) return refuseRead(read.why, label);
  if (read.version === BITCOIN_P2PKH || read.version === BITCOIN_P2SH) return accept(text);
  if (BITCOIN_TESTNET_VERSIONS.has(read.version)) return refuse(ADDRESS_MESSAGES.testnet(label));
  return refuse(ADDRESS_MESSAGES.invalid(label));
}

/** Witness version → the program lengths accepted and the checksum that version is written with. */
const WITNESS_RULES: ReadonlyMap<number, { programBytes: readonly number[]; codec: typeof bech32 }> = new Map(
  [
    [0, { programBytes: [20, 32], codec: bech32 }],
    [1, { programBytes: [32], codec: bech32m }],
  ],
);

/** Bech32 strings are at most 90 characters (BIP-173). */
const BECH32_MAX_LENGTH = 90;

function checkSegwit(text: string, lower: string, label: string): AddressCheck {
  if (text !== lower && text !== text.toUpperCase()) return refuse(ADDRESS_MESSAGES.invalid(label)); // mixed case
  if (lower.length > BECH32_MAX_LENGTH) return refuse(ADDRESS_MESSAGES.invalid(label));
  const separator = lower.lastIndexOf('1');
  const hrp = lower.slice(0, separator);
  if (BITCOIN_TESTNET_HRPS.has(hrp)) return refuse(ADDRESS_MESSAGES.testnet(label));
  if (hrp !== BITCOIN_HRP) return refuse(ADDRESS_MESSAGES.invalid(label));
  // The first data character is the witness version; it says which checksum the address must carry.
  const rules = WITNESS_RULES.get(BECH32_CHARSET.indexOf(lower[separator + 1]));
  if (!rules) return refuse(ADDRESS_MESSAGES.invalid(label));
  const decoded = rules.codec.decodeUnsafe(lower, BECH32_MAX_LENGTH);
  if (!decoded) return refuse(ADDRESS_MESSAGES.checksum(label));
  const program = rules.codec.fromWordsUnsafe(decoded.words.slice(1));
  if (!program || !rules.programBytes.includes(program.length))
    return refuse(ADDRESS_MESSAGES.invalid(label));
  return accept(lower);
}

// --- Ethereum ---

const ETHEREUM = /^0x([0-9a-fA-F]{40})$/;

/** The EIP-55 form of 40 hex digits: a letter is upper case where the Keccak-256 of the lower-case hex has a nibble ≥ 8. */
function toEip55(hex40: string): string {
  const lower = hex40.toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(lower));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0x0f;
    out += nibble >= 8 ? lower[i].toUpperCase() : lower[i];
  }
  return out;
}

function checkEthereum(text: string, label: string): AddressCheck {
  const match = ETHEREUM.exec(text);
  if (!match) return refuse(ADDRESS_MESSAGES.invalid(label));
  const hex = match[1];
  if (/^0+$/.test(hex)) return refuse(ADDRESS_MESSAGES.zeroAddress(label));
  const checksummed = toEip55(hex);
  const carriesChecksum = hex !== hex.toLowerCase() && hex !== hex.toUpperCase();
  if (carriesChecksum && text !== checksummed) return refuse(ADDRESS_MESSAGES.checksum(label));
  return accept(checksummed);
}

// --- TRON ---

function checkTron(text: string, label: string): AddressCheck {
  const read = readBase58Check(text);
  if (!read.ok) return refuseRead(read.why, label);
  if (read.version !== TRON_VERSION) return refuse(ADDRESS_MESSAGES.invalid(label));
  return accept(text);
}

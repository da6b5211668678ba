import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256, sha3_256 } from '@noble/hashes/sha3.js';
import { base58, bech32, bech32m, createBase58check, hex } from '@scure/base';
import { describe, expect, it } from 'vitest';
import {
  ADDRESS_MESSAGES,
  DEPOSIT_NETWORKS,
  NETWORK_LABELS,
  checkDepositAddress,
  isDepositNetwork,
  type DepositNetwork,
} from './depositAddress.js';

const BTC = NETWORK_LABELS.bitcoin;

const accepted = (address: string) => ({ ok: true, address });
const refused = (message: string) => ({ ok: false, message });

// Addresses built from known payloads, so each breaks exactly one rule while its checksum is right.
const base58check = createBase58check(sha256);
/** HASH160 of the genesis block's public key: the payload of 1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa. */
const GENESIS_HASH160 = hex.decode('62e907b15cbf27d5425399ebf6f0fb50ebb88f18');
const withVersion = (version: number, hash: Uint8Array = GENESIS_HASH160) =>
  base58check.encode(Uint8Array.from([version, ...hash]));
/** The witness program of bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4 (BIP-173). */
const P2WPKH_PROGRAM = hex.decode('751e76e8199196d454941c45d1b3a323f1433bd6');
/** The witness program of bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0 (BIP-350). */
const TAPROOT_PROGRAM = hex.decode('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
const segwit = (codec: typeof bech32, hrp: string, version: number, program: Uint8Array) =>
  codec.encode(hrp, [version, ...codec.toWords(program)]);

/** Every address that differs from `address` in exactly one character, taken from `alphabet`. */
function oneCharacterChanges(address: string, alphabet: string, from = 0): string[] {
  const changes: string[] = [];
  for (let i = from; i < address.length; i++) {
    for (const c of alphabet) {
      if (c !== address[i]) changes.push(address.slice(0, i) + c + address.slice(i + 1));
    }
  }
  return changes;
}
const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BECH32_ALPHABET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const HEX_ALPHABET = '0123456789abcdefABCDEF';

describe('networks', () => {
  it('knows Bitcoin, Ethereum, ERC-20 tokens and TRON, each with a label', () => {
    expect(DEPOSIT_NETWORKS).toEqual(['bitcoin', 'ethereum', 'erc20', 'tron']);
    expect(NETWORK_LABELS).toEqual({
      bitcoin: 'Bitcoin (BTC)',
      ethereum: 'Ethereum (ETH)',
      erc20: 'Ethereum ERC-20 token',
      tron: 'TRON (TRX / TRC-20)',
    });
  });

  it.each([...DEPOSIT_NETWORKS])('isDepositNetwork(%s)', (network) => {
    expect(isDepositNetwork(network)).toBe(true);
  });

  it.each([['litecoin'], ['Bitcoin'], [''], [' tron'], ['toString'], [null], [undefined], [1], [{}]])(
    'isDepositNetwork refuses %j',
    (value) => {
      expect(isDepositNetwork(value)).toBe(false);
    },
  );

  it.each([['litecoin'], ['BTC'], [''], [null], [42]])(
    'refuses the network %j with a clear message',
    (network) => {
      expect(checkDepositAddress(network as string, '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa')).toEqual(
        refused(ADDRESS_MESSAGES.network),
      );
      expect(ADDRESS_MESSAGES.network).toBe(
        'Choose the deposit network: Bitcoin (BTC), Ethereum (ETH), Ethereum ERC-20 token, TRON (TRX / TRC-20).',
      );
    },
  );
});

describe('any network', () => {
  it.each([...DEPOSIT_NETWORKS])('%s: refuses what is not text', (network) => {
    for (const address of [null, undefined, 42, {}, ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa']]) {
      expect(checkDepositAddress(network, address as string)).toEqual(refused(ADDRESS_MESSAGES.notText));
    }
  });

  it.each([...DEPOSIT_NETWORKS])('%s: refuses an empty or blank address', (network) => {
    expect(checkDepositAddress(network, '')).toEqual(refused(ADDRESS_MESSAGES.required));
    expect(checkDepositAddress(network, ' \t\n ')).toEqual(refused(ADDRESS_MESSAGES.required));
  });

  it.each([...DEPOSIT_NETWORKS])('%s: refuses more than 100 characters', (network) => {
    expect(checkDepositAddress(network, '1'.repeat(101))).toEqual(refused(ADDRESS_MESSAGES.tooLong));
    expect(checkDepositAddress(network, `0x${'a'.repeat(99)}`)).toEqual(refused(ADDRESS_MESSAGES.tooLong));
  });

  it.each<[DepositNetwork, string]>([
    ['bitcoin', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['bitcoin', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
    ['ethereum', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
  ])('%s: trims surrounding whitespace and refuses whitespace inside', (network, address) => {
    expect(checkDepositAddress(network, `  ${address}\n\t`)).toEqual(accepted(address));
    const spaced = `${address.slice(0, 10)} ${address.slice(10)}`;
    expect(checkDepositAddress(network, spaced)).toEqual(
      refused(ADDRESS_MESSAGES.invalid(NETWORK_LABELS[network])),
    );
  });

  it('never throws, whatever the text', () => {
    const texts = [
      '1'.repeat(100),
      'z'.repeat(100),
      'T',
      'bc1',
      '1',
      '0x',
      'bc1'.padEnd(100, 'q'),
      '\u0000',
      '💸'.repeat(20),
      '<script>alert(1)</script>',
      'bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
      ...oneCharacterChanges('bc1qw508', '1bio!Q '),
    ];
    for (const network of DEPOSIT_NETWORKS) {
      for (const text of texts) {
        const check = checkDepositAddress(network, text);
        expect(check.ok, `${network} ${text}`).toBe(false);
      }
    }
  });
});

/** `network` accepts each address of `rows` ([what it is, address]) as it is. */
function acceptsEach(network: DepositNetwork, rows: ReadonlyArray<readonly [string, string]>): void {
  it.each(rows)('accepts %s: %s', (_what, address) => {
    expect(checkDepositAddress(network, address)).toEqual(accepted(address));
  });
}

/** `network` refuses each address of `rows` ([what it is, address]) as no address of it. */
function refusesEach(network: DepositNetwork, rows: ReadonlyArray<readonly [string, string]>): void {
  it.each(rows)('refuses %s', (_what, address) => {
    expect(checkDepositAddress(network, address)).toEqual(
      refused(ADDRESS_MESSAGES.invalid(NETWORK_LABELS[network])),
    );
  });
}

/**
 * The Base58Check rules of a network whose addresses are one version byte and a 20-byte hash: a changed
 * character fails the checksum, every one-character change of `valid` is refused, and a right checksum
 * over another version byte or over a payload of another length (or `alsoInvalid`) is an invalid address.
 */
function base58CheckRules(
  network: DepositNetwork,
  rules: {
    version: number;
    valid: string;
    checksumBroken: readonly string[];
    otherVersions: readonly string[];
    alsoInvalid?: readonly string[];
  },
): void {
  const check = (address: string) => checkDepositAddress(network, address);
  const label = NETWORK_LABELS[network];

  it('refuses one changed character with the checksum message', () => {
    for (const address of rules.checksumBroken) {
      expect(check(address), address).toEqual(refused(ADDRESS_MESSAGES.checksum(label)));
    }
  });

  it(`refuses every one-character change of ${rules.valid}`, () => {
    for (const changed of oneCharacterChanges(rules.valid, BASE58_ALPHABET)) {
      expect(check(changed).ok, changed).toBe(false);
    }
  });

  it('refuses other version bytes with a right checksum', () => {
    for (const address of rules.otherVersions) {
      expect(check(address), address).toEqual(refused(ADDRESS_MESSAGES.invalid(label)));
    }
  });

  it('refuses a payload that is not a version byte and a 20-byte hash, even with a right checksum', () => {
    for (const address of [
      base58check.encode(Uint8Array.from([rules.version, ...GENESIS_HASH160.subarray(1)])),
      base58check.encode(Uint8Array.from([rules.version, ...GENESIS_HASH160, 0x00])),
      ...(rules.alsoInvalid ?? []),
    ]) {
      expect(check(address), address).toEqual(refused(ADDRESS_MESSAGES.invalid(label)));
    }
  });
}

describe('bitcoin', () => {
  const check = (address: string) => checkDepositAddress('bitcoin', address);
  /** Each of `addresses` is refused with `message`. */
  const refusesAll = (addresses: readonly string[], message: string) => {
    for (const address of addresses) expect(check(address), address).toEqual(refused(message));
  };

  acceptsEach('bitcoin', [
    ['P2PKH, the genesis block address', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['P2PKH', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT'],
    ['P2SH (BIP-13 example)', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
    ['P2WPKH (BIP-173)', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
    ['P2WSH (BIP-173)', 'bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3'],
    ['Taproot (BIP-350)', 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0'],
  ]);

  it('accepts version 0x05 (P2SH) as well as 0x00 (P2PKH)', () => {
    expect(withVersion(0x00)).toBe('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa');
    expect(check(withVersion(0x05))).toEqual(accepted(withVersion(0x05)));
  });

  it('accepts bech32 in upper case and keeps it in lower case, its canonical form', () => {
    expect(check('BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4')).toEqual(
      accepted('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'),
    );
  });

  describe('Base58Check', () => {
    base58CheckRules('bitcoin', {
      version: 0x00,
      valid: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa',
      checksumBroken: ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLz'],
      // TRON, Litecoin L…, Dogecoin D…
      otherVersions: [
        'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
        withVersion(0x41),
        withVersion(0x30),
        withVersion(0x1e),
        withVersion(0x01),
      ],
      // a base58 string too short to carry a checksum
      alsoInvalid: [base58.encode(Uint8Array.from([0x05, 1, 2]))],
    });

    refusesEach('bitcoin', [
      ['a 0 (not in the alphabet)', '1A1zP1eP5QGefi2DMPTfTL5SLmv7Divf0a'],
      ['an O', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfOa'],
      ['an I', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfIa'],
      ['an l', '1A1zP1eP5QGefi2DMPTfTL5SLmv7Divfla'],
      ['a payment URI', 'bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ]);

    it('refuses testnet addresses (versions 0x6f and 0xc4) as test network addresses', () => {
      refusesAll(
        [
          'mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn',
          '2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc',
          withVersion(0x6f),
          withVersion(0xc4),
        ],
        ADDRESS_MESSAGES.testnet(BTC),
      );
    });
  });

  describe('segwit (BIP-173, BIP-350)', () => {
    it.each<[string, readonly string[], string]>([
      [
        'one changed character with the checksum message',
        [
          'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5',
          'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj2',
        ],
        ADDRESS_MESSAGES.checksum(BTC),
      ],
      [
        'mixed case',
        ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kV8F3T4', 'Bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
        ADDRESS_MESSAGES.invalid(BTC),
      ],
      [
        'bech32m on a witness v0 program and bech32 on a v1 (Taproot) program: v0 wants the bech32 checksum, v1 the bech32m one (BIP-350 vectors)',
        [
          'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh',
          'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqh2y7hd',
          segwit(bech32m, 'bc', 0, P2WPKH_PROGRAM),
          segwit(bech32, 'bc', 1, TAPROOT_PROGRAM),
        ],
        ADDRESS_MESSAGES.checksum(BTC),
      ],
      [
        'other human-readable parts, with their checksum right',
        [
          'tc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vq5zuyut',
          segwit(bech32, 'ltc', 0, P2WPKH_PROGRAM),
          segwit(bech32, 'bcx', 0, P2WPKH_PROGRAM),
        ],
        ADDRESS_MESSAGES.invalid(BTC),
      ],
      [
        'testnet and regtest addresses as test network addresses',
        [
          'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
          'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c',
          segwit(bech32, 'bcrt', 0, P2WPKH_PROGRAM),
        ],
        ADDRESS_MESSAGES.testnet(BTC),
      ],
    ])('refuses %s', (_what, addresses, message) => {
      refusesAll(addresses, message);
    });

    it('refuses every one-character change after the witness version', () => {
      for (const address of [
        'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
        'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0',
      ]) {
        for (const changed of oneCharacterChanges(address, BECH32_ALPHABET, 'bc1q'.length)) {
          expect(check(changed), changed).toEqual(refused(ADDRESS_MESSAGES.checksum(BTC)));
        }
      }
    });

    refusesEach('bitcoin', [
      ['v0 with a 16-byte program (BIP-350)', 'BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P'],
      ['v1 with a 1-byte program (BIP-350)', 'bc1pw5dgrnzv'],
      [
        'v1 with a 41-byte program (BIP-350)',
        'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v8n0nx0muaewav253zgeav',
      ],
      [
        'v1 with a 40-byte program (a valid segwit address, not Taproot)',
        'bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y',
      ],
      ['v1 with a 20-byte program', segwit(bech32m, 'bc', 1, P2WPKH_PROGRAM)],
      ['v0 with a 33-byte program', segwit(bech32, 'bc', 0, Uint8Array.from([...TAPROOT_PROGRAM, 0]))],
      ['v2 (BIP-350, no wallet pays to it)', 'bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs'],
      ['v16 (BIP-350)', 'BC1SW50QGDZ25J'],
      ['witness version 17 (BIP-350)', 'BC130XLXVLHEMJA6C4DQV22UAPCTQUPFHLXM9H8Z3K2E72Q4K9HCZ7VQ7ZWS8R'],
      [
        'zero padding of more than 4 bits (BIP-350)',
        'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7v07qwwzcrf',
      ],
      ['an empty data section (BIP-350)', 'bc1gmk9yu'],
      [
        'an invalid character in the checksum (BIP-350)',
        'bc1p38j9r5y49hruaue7wxjce0updqjuyyx0kh56v8s25huc6995vvpql3jow4',
      ],
      ['more than 90 characters', `bc1q${'q'.repeat(87)}`],
    ]);
  });

  refusesEach('bitcoin', [['an Ethereum address', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed']]);
});

describe.each(['ethereum', 'erc20'] as const)('%s', (network) => {
  const label = NETWORK_LABELS[network];
  const check = (address: string) => checkDepositAddress(network, address);

  // EIP-55's own examples: the first four are checksummed addresses whose checksum is all upper or all lower case.
  it.each([
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    '0xdAC17F958D2ee523a2206206994597C13D831ec7', // the USDT token contract
    '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', // the USDC token contract
  ])('accepts the EIP-55 address %s', (address) => {
    expect(check(address)).toEqual(accepted(address));
  });

  it('accepts all lower case or all upper case (no checksum) and gives back the EIP-55 form', () => {
    const eip55 = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    expect(check('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toEqual(accepted(eip55));
    expect(check('0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED')).toEqual(accepted(eip55));
  });

  it('refuses a mixed-case address whose case is not its EIP-55 checksum', () => {
    expect(check('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD')).toEqual(
      refused(ADDRESS_MESSAGES.checksum(label)),
    );
    expect(check('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAee')).toEqual(
      refused(ADDRESS_MESSAGES.checksum(label)),
    );
  });

  it('refuses every one-character change of a checksummed address', () => {
    for (const changed of oneCharacterChanges(
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      HEX_ALPHABET,
      2,
    )) {
      expect(check(changed), changed).toEqual(refused(ADDRESS_MESSAGES.checksum(label)));
    }
  });

  it('checks the checksum with Keccak-256, not with the standardised SHA3-256', () => {
    const lower = '5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
    const caseBy = (hash: Uint8Array) =>
      `0x${[...lower].map((c, i) => (((hash[i >> 1] >> (i % 2 ? 0 : 4)) & 15) >= 8 ? c.toUpperCase() : c)).join('')}`;
    const text = new TextEncoder().encode(lower);
    expect(caseBy(keccak_256(text))).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    expect(check(caseBy(sha3_256(text)))).toEqual(refused(ADDRESS_MESSAGES.checksum(label)));
  });

  it('refuses the zero address', () => {
    expect(check(`0x${'0'.repeat(40)}`)).toEqual(refused(ADDRESS_MESSAGES.zeroAddress(label)));
  });

  it.each([
    ['no 0x', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['0X', '0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['39 hex digits', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe'],
    ['41 hex digits', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAedd'],
    ['a non-hex digit', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg'],
    ['a Bitcoin address', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['a TRON address', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['an ENS name', 'vitalik.eth'],
  ])('refuses %s', (_what, address) => {
    expect(check(address)).toEqual(refused(ADDRESS_MESSAGES.invalid(label)));
  });

  it('names the network in its messages', () => {
    expect(ADDRESS_MESSAGES.invalid(label)).toBe(`This is not a valid ${label} address.`);
  });
});

describe('tron', () => {
  const check = (address: string) => checkDepositAddress('tron', address);

  acceptsEach('tron', [
    ['the USDT (TRC-20) contract', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['the USDC (TRC-20) contract', 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8'],
    ['an account', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7'],
  ]);

  it('accepts version 0x41 with any 20-byte hash (34 characters starting with T)', () => {
    const address = withVersion(0x41);
    expect(address).toMatch(/^T.{33}$/);
    expect(check(address)).toEqual(accepted(address));
  });

  base58CheckRules('tron', {
    version: 0x41,
    valid: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    checksumBroken: ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u'],
    otherVersions: ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', withVersion(0xa0), withVersion(0x42)],
  });

  refusesEach('tron', [
    ['an Ethereum address', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['its hex form (41…)', '41a614f803b6fd780986a42c78ec9c7f77e6ded13c'],
    ['a Bitcoin segwit address', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4'],
  ]);
});

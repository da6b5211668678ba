import { describe, expect, it } from 'vitest';
import { isValidWalletAddress, walletNetworkOf } from './walletAddress.js';

describe('walletNetworkOf', () => {
  it.each([
    ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'bitcoin'], // legacy P2PKH, 34 chars
    ['1BoatSLRHtKNngkdXEeobR76b53LETtpyT', 'bitcoin'],
    ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'bitcoin'], // P2SH
    ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'bitcoin'], // P2WPKH, 42 chars
    ['BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ', 'bitcoin'], // bech32 in upper case is valid
    ['bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297', 'bitcoin'], // taproot, 62 chars
    ['0x742d35Cc6634C0532925a3b844Bc454e4438f44e', 'evm'],
    ['0x0000000000000000000000000000000000000000', 'evm'],
    ['TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', 'tron'],
    ['LdP8Qox1VAhCzLJNqrr74YovaWYyNBUWvL', 'litecoin'],
    ['MGxNPPB7eBoWPUaprtX9v9CXJZoD2465zN', 'litecoin'],
    ['ltc1qg82tyfnyw8lnh6vd4wwd5xmz4x0mh3mfcvu0ja', 'litecoin'],
    ['DH5yaieqoZN36fDVciNyRueRGvGLR3mr7L', 'dogecoin'],
    ['rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', 'xrp'],
  ])('accepts %s as %s', (address, network) => {
    expect(walletNetworkOf(address)).toBe(network);
    expect(isValidWalletAddress(address)).toBe(true);
  });

  it('trims surrounding whitespace', () => {
    expect(walletNetworkOf('  0x742d35Cc6634C0532925a3b844Bc454e4438f44e\n')).toBe('evm');
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['a word', 'my-wallet'],
    ['an email', 'investor@example.com'],
    ['EVM one hex digit short', '0x742d35Cc6634C0532925a3b844Bc454e4438f44'],
    ['EVM one hex digit long', '0x742d35Cc6634C0532925a3b844Bc454e4438f44e1'],
    ['EVM with a non-hex digit', '0x742d35Cc6634C0532925a3b844Bc454e4438f44g'],
    ['EVM without 0x', '742d35Cc6634C0532925a3b844Bc454e4438f44e'],
    ['base58 with a 0 (not in the alphabet)', '1A1zP1eP5QGefi2DMPTfTL5SLmv7Divf0a'],
    ['base58 with an O', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfOa'],
    ['base58 with an l', '1A1zP1eP5QGefi2DMPTfTL5SLmv7Divfla'],
    ['bitcoin legacy too short (25 chars)', '1A1zP1eP5QGefi2DMPTfTL5SL'],
    ['bitcoin legacy too long (36 chars)', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNaaa'],
    ['bech32 with mixed case', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mDQ'],
    ['bech32 with a b (not in its charset)', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdb'],
    ['bech32 too short', 'bc1qar0srrr7xfkvy5l643'],
    ['TRON one char short', 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU'],
    ['a space inside', '1A1zP1eP5QGefi2DMP TfTL5SLmv7DivfNa'],
    ['a payment URI', 'bitcoin:1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
    ['an injection attempt', '0x742d35Cc6634C0532925a3b844Bc454e4438f44e<script>'],
    ['absurdly long', `0x${'a'.repeat(200)}`],
  ])('refuses %s', (_what, address) => {
    expect(walletNetworkOf(address)).toBeNull();
    expect(isValidWalletAddress(address)).toBe(false);
  });
});

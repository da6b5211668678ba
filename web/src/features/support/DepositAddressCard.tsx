import { useMemo, useState } from 'react';
import { create } from 'qrcode';
import { networkOf, type DepositAddressPart } from './supportTypes';

export const ADDRESS_CARD_TEXT = {
  copy: 'Copy address',
  copied: 'Address copied',
  copyFailed: 'Copy failed: select the address and copy it yourself',
  warning: (asset: string, chain: string) =>
    `Send only ${asset} on the ${chain} network to this address. Any other asset or network is lost.`,
} as const;

/** The address as a QR code: one SVG path of its dark modules (built here, no markup from elsewhere). */
function QrCode({ value, label }: { value: string; label: string }) {
  const { size, path } = useMemo(() => {
    const { modules } = create(value, { errorCorrectionLevel: 'M' });
    let d = '';
    for (let row = 0; row < modules.size; row++)
      for (let col = 0; col < modules.size; col++)
        if (modules.data[row * modules.size + col]) d += `M${col + 4} ${row + 4}h1v1h-1z`;
    return { size: modules.size + 8, path: d };
  }, [value]);
  return (
    <svg
      className="address-card__qr"
      viewBox={`0 0 ${size} ${size}`}
      role="img"
      aria-label={label}
      shapeRendering="crispEdges"
    >
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#081b33" />
    </svg>
  );
}

/** What may be sent: the label names the token of an ERC-20 or TRON address; else the network's asset. */
export function assetOf(part: DepositAddressPart): string {
  const network = networkOf(part.network);
  return (part.network === 'erc20' || part.network === 'tron') && part.label ? part.label : network.asset;
}

/** A deposit address support sent: network, address, QR code, copy button and the one-asset warning. */
export function DepositAddressCard({ part }: { part: DepositAddressPart }) {
  const network = networkOf(part.network);
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');

  async function onCopy() {
    try {
      if (!navigator.clipboard) throw new Error('Clipboard unavailable');
      await navigator.clipboard.writeText(part.address);
      setCopy('copied');
    } catch {
      setCopy('failed');
    }
  }

  return (
    <div className="address-card" aria-label={`Deposit address on ${network.label}`} role="group">
      <p className="address-card__network">
        <span className="address-card__term">Network</span> {network.label}
        {part.label ? ` · ${part.label}` : ''}
      </p>
      <QrCode value={part.address} label={`QR code of the ${network.label} address`} />
      <p className="address-card__address">
        <span className="address-card__term">Address</span>
        <code className="break-all">{part.address}</code>
      </p>
      <button type="button" className="btn btn--secondary btn--sm" onClick={() => void onCopy()}>
        {ADDRESS_CARD_TEXT.copy}
      </button>
      <span className="address-card__copied" role="status">
        {copy === 'copied' ? ADDRESS_CARD_TEXT.copied : copy === 'failed' ? ADDRESS_CARD_TEXT.copyFailed : ''}
      </span>
      <p className="address-card__warning">{ADDRESS_CARD_TEXT.warning(assetOf(part), network.chain)}</p>
    </div>
  );
}

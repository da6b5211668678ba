const paths: Record<string, string> = {
  deposit: 'M12 4v11m0 0l-4-4m4 4l4-4M5 19h14',
  invest: 'M4 17l5-5 4 4 7-7M15 9h5v5',
  status: 'M5 5h14v14H5zM9 9h6M9 13h6M9 17h3',
  plans: 'M5 4h10l4 4v12H5zM9 12h6M9 16h6',
  withdraw: 'M12 20V9m0 0l-4 4m4-4l4 4M5 5h14',
  referrals: 'M9 11a3 3 0 1 0 0-6 3 3 0 0 0 0 6zm-6 9c.6-3 3-5 6-5s5.4 2 6 5M17 8v6M14 11h6',
  history: 'M4 12a8 8 0 1 0 2.3-5.6M4 4v4h4M12 8v4l3 2',
  pending: 'M12 4a8 8 0 1 0 0 16 8 8 0 0 0 0-16zm0 4v4l3 2',
  support: 'M4 6a2 2 0 0 1 2-2h12a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2h-7l-4 4v-4H6a2 2 0 0 1-2-2zM8 9h8M8 12h5',
  kyc: 'M4 6h16v12H4zM8 10a1.5 1.5 0 1 0 0 .1M6.5 15c.4-1.3 1.2-2 2.5-2s2.1.7 2.5 2M14 10h4M14 14h3',
};

export function TileIcon({ name }: { name: keyof typeof paths | string }) {
  return (
    <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
      <path
        d={paths[name] ?? paths.pending}
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}

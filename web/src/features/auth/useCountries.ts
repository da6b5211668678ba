import { useEffect, useState } from 'react';
import { toast } from '../../ui/toast';
import { authApi } from './authApi';
import type { Country } from './authTypes';
import { MESSAGES } from './validation';

/** GET /api/countries once; on failure the §8 text is shown and the field falls back to free text. */
export function useCountries() {
  const [countries, setCountries] = useState<Country[]>([]);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  useEffect(() => {
    let live = true;
    authApi
      .countries()
      .then((list) => {
        if (!live) return;
        setCountries([...list].sort((a, b) => a.name.localeCompare(b.name)));
        setState('ready');
      })
      .catch(() => {
        if (!live) return;
        setState('failed');
        toast.error(MESSAGES.countriesFailed, { toastId: 'countries-failed' });
      });
    return () => {
      live = false;
    };
  }, []);
  return { countries, state };
}

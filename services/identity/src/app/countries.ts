import countries from '../data/countries.json' with { type: 'json' };

export interface Country {
  name: string;
  code: string;
}

/** The ISO 3166-1 countries (alpha-2 code and English short name), sorted by name. */
export function listCountries(): Country[] {
  return countries as Country[];
}

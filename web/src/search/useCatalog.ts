import { useEffect, useState } from 'react';
import { get } from '../api/client';
import type { CatalogEnv, Language } from '../api/types';

/** The envs and indexes this user may read (for the pickers) and the language's vocabulary. */
export function useCatalog() {
  const [envs, setEnvs] = useState<CatalogEnv[]>([]);
  const [language, setLanguage] = useState<Language | null>(null);
  useEffect(() => {
    get<{ envs: CatalogEnv[] }>('/api/catalog').then(
      (c) => setEnvs(c.envs),
      () => setEnvs([]),
    );
    get<Language>('/api/language').then(setLanguage, () => setLanguage(null));
  }, []);
  return { envs, language };
}

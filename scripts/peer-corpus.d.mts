/** Types of scripts/peer-corpus.mjs (plain JS, so that `npm run setup:peers` needs no TypeScript). */
export declare const DAT3M: { readonly repo: string; readonly commit: string; readonly sha256: string };
export declare const CACHE_DIR: string;
export declare const SHARED_DIR: string;
export declare const CORPUS_FOLDERS: readonly string[];
export declare const CORPUS_FILES: Readonly<Record<string, string>>;
export declare const HOW_TO_GET: string;
export declare function corpusFiles(dir: string): string[];
export declare function corpusHash(dir: string): string;
export declare function corpusProblem(dir: string): string | undefined;
export declare function locatePeers(
  env?: NodeJS.ProcessEnv,
): { root: string; via: string; reason?: undefined } | { root?: undefined; via?: undefined; reason: string };

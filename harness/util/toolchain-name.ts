/** A short name of a toolchain for reports, folders and SASS excerpts: "ptxas 13.0 (V13.0.88)". */
export function toolchainName(p: { readonly release: string; readonly versionLine: string }): string {
  const build = /\bV(\d+\.\d+\.\d+)/.exec(p.versionLine)?.[1];
  return `ptxas ${p.release}${build ? ` (V${build})` : ''}`;
}

/** The folder a toolchain's report goes to in a toolchain matrix: "ptxas-13.0". */
export function toolchainFolder(p: { readonly release: string }): string {
  return `ptxas-${p.release.replace(/[^\w.-]/g, '_')}`;
}

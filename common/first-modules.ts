/** The parts of Remix's assets manifest that name a page's modules. */
export interface ModulesManifest {
  url: string;
  entry: { module: string; imports: string[] };
  routes: Record<string, { module: string; imports?: string[] } | undefined>;
}

/**
 * The modules a page loads before it is interactive, the same list `<Scripts/>` preloads: the route manifest, the
 * entry and its chunks, each matched route's chunks and module (decision 090 names them in the <head>; decision
 * 093 inlines the stylesheet's rules they can use).
 */
export function firstModules(manifest: ModulesManifest, routeIds: string[]): string[] {
  const list = [manifest.url, manifest.entry.module, ...manifest.entry.imports];
  for (const id of routeIds) {
    const route = manifest.routes[id];
    if (route) list.push(...(route.imports ?? []), route.module);
  }
  return [...new Set(list)];
}

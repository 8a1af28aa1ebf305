/** The modules a source loads: `import ... from`, `export ... from` and `import '...'` (not `import type`), and `import('...')`. */
export function loadedModules(source: string): { static: string[]; dynamic: string[] } {
  const statics: string[] = [];
  for (const match of source.matchAll(
    /(?:^|[;\n])\s*(?:(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s*)?|import\s*)['"]([^'"]+)['"]/g,
  ))
    if (match[1] === undefined && match[2]) statics.push(match[2]);
  const dynamic = [...source.matchAll(/import\s*\(\s*['"]([^'"]+)['"]/g)].flatMap((match) =>
    match[1] ? [match[1]] : [],
  );
  return { static: statics, dynamic };
}

// Statements only (a line that starts with import/export), so examples in doc comments do not count;
// an import clause holds no `(`, `)` or `=`, so a match never runs on from an earlier statement.
const staticImport = /^\s*(?:import|export)\b[^;'"()=]*?\bfrom\s*['"]([^'"]+)['"]/gm
const bareImport = /^\s*import\s*['"]([^'"]+)['"]/gm
const dynamicImport = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g
const requireCall = /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g

/**
 * The module specifiers a TypeScript or JavaScript file's text imports, in the order of the kinds
 * below: `import … from` and `export … from` (type-only ones included), side-effect imports,
 * `import('…')` (type positions included) and `require('…')`.
 */
export function importSpecifiers(text: string): string[] {
  return [staticImport, bareImport, dynamicImport, requireCall].flatMap((pattern) =>
    [...text.matchAll(pattern)].map((match) => match[1] ?? ''),
  )
}

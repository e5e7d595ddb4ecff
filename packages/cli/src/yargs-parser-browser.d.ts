/** yargs-parser's entry without Node built-ins (run/parse-flags.ts): the same parser as its main entry, typed as it. */
declare module 'yargs-parser/browser' {
  import parser from 'yargs-parser'
  // biome-ignore lint/style/noDefaultExport: the package's own shape, declared as it is
  export default parser
}

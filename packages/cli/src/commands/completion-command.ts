import { commands } from '../registry/commands.ts'
import { globalFlags } from '../registry/globals.ts'
import { CliError } from '../run/cli-error.ts'
import type { Handler } from '../run/context.ts'
import { type CompletionShell, completionScript, completionShells } from './completion.ts'

/** `quire completion [bash|zsh|fish]`: the script for the shell named (checked as any flag value), else for $SHELL. */
export const completion: Handler = async (context, args) => {
  const named = (args.shell as string | undefined) ?? context.env.shell?.split('/').at(-1)
  if (!named || !(completionShells as readonly string[]).includes(named))
    throw new CliError('usage', named ? `No completion script for ${named} (from $SHELL).` : 'Name the shell.', {
      hint: `quire completion ${completionShells.join('|')}`,
    })
  const text = completionScript(named as CompletionShell, commands, globalFlags)
  return { kind: 'text', text, value: { shell: named, script: text } }
}

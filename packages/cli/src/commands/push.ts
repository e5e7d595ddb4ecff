import { createHash } from 'node:crypto'
import { basename } from 'node:path'
import { isQuireApiError, type QuireClient } from '@quire/client'
import { artifactTypeOf, slugOfFileName, titleOfFile } from '@quire/core'
import { preview } from '../run/call-operation.ts'
import { CliError } from '../run/cli-error.ts'
import type { Args, CommandContext, CommandResult, Handler } from '../run/context.ts'
import { readText } from '../run/input.ts'

interface PushPlan {
  readonly owner: string
  readonly projectSlug: string
  readonly slug: string
  readonly type: string
  readonly title: string
  readonly content: string
  readonly changelog: string
  readonly publicView: boolean
}

async function planOf(context: CommandContext, args: Args): Promise<PushPlan> {
  const file = String(args.file)
  if (file === '-' && !args.slug)
    throw new CliError('usage', 'Pushing standard input needs --slug (there is no file name to take it from).')
  const type = (args.type as string | undefined) ?? artifactTypeOf(file)
  if (!type)
    throw new CliError('usage', `Cannot tell the type of ${file} from its extension.`, {
      hint: 'Pass --type (md, txt, html, json, yaml, csv, mermaid or svg).',
    })
  const slug = (args.slug as string | undefined) ?? slugOfFileName(file)
  if (!slug) throw new CliError('usage', `Cannot make a slug from the name ${file}.`, { hint: 'Pass --slug.' })
  const content = await readText('--file', file, context.io)
  return {
    owner: String(args.owner),
    projectSlug: String(args.projectSlug),
    slug,
    type,
    title: (args.title as string | undefined) ?? titleOfFile(file === '-' ? slug : file, type, content),
    content,
    changelog: (args.changelog as string | undefined) ?? `Pushed ${file === '-' ? 'from standard input' : basename(file)}`,
    publicView: args.public === true,
  }
}

/** The artifact at the plan's path, or null when there is none (yet). */
async function existing(client: QuireClient, plan: PushPlan) {
  try {
    return await client.call('resolveArtifactPath', { params: { owner: plan.owner, projectSlug: plan.projectSlug, slug: plan.slug } })
  } catch (error) {
    if (isQuireApiError(error, 'not_found')) return null
    throw error
  }
}

/** Whether the artifact's latest version already holds exactly this content (a 304 on its strong ETag: nothing downloaded). */
async function unchanged(client: QuireClient, artifactId: string, latest: number, content: string): Promise<boolean> {
  const sha256 = createHash('sha256').update(content, 'utf8').digest('hex')
  const answer = await client.send('getContent', { params: { artifactId }, query: { version: latest } }, { ifNoneMatch: `"${sha256}"` })
  return answer.notModified
}

function conflict(plan: PushPlan, latest: unknown, expected: number): CliError {
  return new CliError(
    'conflict',
    `${plan.owner}/${plan.projectSlug}/${plan.slug} moved on to version ${String(latest)} while you pushed (you started from ${expected}); nothing was written.`,
    {
      code: 'version_conflict',
      hint: `See what changed with quire artifact changes ${plan.owner}/${plan.projectSlug}/${plan.slug} --since ${expected}, merge it into your file, and push again.`,
      details: { latestVersion: latest, expectedLatestVersion: expected },
    },
  )
}

/**
 * `quire push`: creates the artifact from the file, or, when one already lives at that path,
 * appends the file as a new version on top of the latest one (optimistic concurrency: a push that
 * raced another is refused, and nothing is written). Pushing unchanged content writes nothing.
 */
export const push: Handler = async (context, args): Promise<CommandResult> => {
  const plan = await planOf(context, args)
  const client = await context.client()
  const where = `${plan.owner}/${plan.projectSlug}/${plan.slug}`
  context.progress(`Pushing ${where}…`)
  const found = await existing(client, plan)

  if (found === null) {
    const body = {
      ownerUsername: plan.owner,
      projectSlug: plan.projectSlug,
      slug: plan.slug,
      type: plan.type as never,
      title: plan.title,
      content: plan.content,
      changelog: plan.changelog,
      access: { publicView: plan.publicView, publicEdit: false },
    }
    try {
      // A dry run asks the server, which checks everything the create would (the slug being free included).
      if (context.globals.dryRun) return await preview(context, 'createArtifact', { body })
      const artifact = await client.call('createArtifact', { body })
      return { kind: 'value', value: { action: 'created', version: artifact.latestVersion, url: artifact.url, artifact } }
    } catch (error) {
      // Someone created it between our look and our write (or its dry run): push onto theirs instead.
      if (!isQuireApiError(error, 'slug_taken')) throw error
      const raced = await existing(client, plan)
      if (raced === null) throw error
      return append(context, client, plan, raced)
    }
  }
  if (await unchanged(client, found.id, found.latestVersion, plan.content)) {
    context.progress(`${where} is already at this content (version ${found.latestVersion}); nothing pushed.`)
    return { kind: 'value', value: { action: 'unchanged', version: found.latestVersion, url: found.url, artifact: found } }
  }
  return append(context, client, plan, found)
}

async function append(
  context: CommandContext,
  client: QuireClient,
  plan: PushPlan,
  artifact: { readonly id: string; readonly latestVersion: number; readonly url: string },
): Promise<CommandResult> {
  const { id: artifactId, latestVersion: latest, url } = artifact
  const input = { params: { artifactId }, body: { content: plan.content, changelog: plan.changelog, expectedLatestVersion: latest } }
  if (context.globals.dryRun) return preview(context, 'appendVersion', input, `${plan.owner}/${plan.projectSlug}/${plan.slug}`)
  try {
    const version = await client.call('appendVersion', input)
    return { kind: 'value', value: { action: 'appended', version: version.versionNumber, url, artifactId } }
  } catch (error) {
    if (isQuireApiError(error, 'version_conflict'))
      throw conflict(plan, (error.problem as { latestVersion?: unknown }).latestVersion, latest)
    throw error
  }
}

import { type Static, Type } from 'typebox'
import { Artifact, ArtifactTypeSchema } from './artifact.ts'
import { Cursor, Limit, Slug, Text, Timestamp } from './common.ts'

/** How long a search may be: characters of `q`, and words or phrases in it. */
export const SEARCH_QUERY_MAX_LENGTH = 256
export const SEARCH_QUERY_MAX_TERMS = 16
/** Snippets per hit, and the text around a match a snippet shows. */
export const SEARCH_SNIPPETS_PER_HIT = 3

export const SearchQuery = Type.Object(
  {
    q: Text({
      minLength: 1,
      maxLength: SEARCH_QUERY_MAX_LENGTH,
      description: `What to find, in web-search syntax: words (all must match, in any form: \`deploy\` finds "deployment"), "quoted phrases", \`-excluded\` words, and \`or\` between alternatives. Text that words do not split well (Chinese, Japanese, Korean; identifiers such as \`useEffect\` or \`ERR_CONN_RESET\`) matches as a substring. At most ${SEARCH_QUERY_MAX_LENGTH} characters and ${SEARCH_QUERY_MAX_TERMS} words or phrases; at least one word must not be excluded.`,
    }),
    owner: Type.Optional({ ...Slug, description: 'Only artifacts of this owner namespace (a username or a team workspace slug).' }),
    project: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?/[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$',
        maxLength: 129,
        description: 'Only artifacts of this project, as `OWNER/PROJECT`.',
      }),
    ),
    type: Type.Optional({ ...ArtifactTypeSchema, description: 'Only artifacts of this type.' }),
    updatedAfter: Type.Optional({ ...Timestamp, description: 'Only artifacts changed after this time.' }),
    versions: Type.Optional(
      Type.Enum(['latest', 'all'], {
        default: 'latest',
        description:
          '`latest` (the default) searches each artifact as it is now; `all` searches every version too, and a hit names the best-matching version.',
      }),
    ),
    limit: Type.Optional({ ...Limit, default: 20, description: 'Page size, 1–100 (default 20).' }),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
)
export type SearchQuery = Static<typeof SearchQuery>

export const searchFields = ['title', 'description', 'content'] as const
export type SearchField = (typeof searchFields)[number]

/** A piece of a snippet: plain text, `match` when it is what the query found. Never HTML. */
export const SnippetSegment = Type.Object({
  text: Type.String({ description: 'Plain text (not HTML: escape it when you show it).' }),
  match: Type.Boolean({ description: 'True when this text is what the query matched.' }),
})
export type SnippetSegment = Static<typeof SnippetSegment>

export const Snippet = Type.Object({
  field: Type.Enum(searchFields, { description: 'Where the text comes from: the title, the description or the content.' }),
  line: Type.Optional(Type.Integer({ minimum: 1, description: 'For content: the line (1-based) the snippet starts on.' })),
  segments: Type.Array(SnippetSegment, { description: 'The snippet, in order; joined, the segments give its text.' }),
})
export type Snippet = Static<typeof Snippet>

export const SearchHit = Type.Object({
  artifact: { ...Artifact, description: 'The artifact found, as it is now.' },
  version: Type.Integer({ minimum: 1, description: 'The version that matched (the latest unless `versions=all`).' }),
  score: Type.Number({ minimum: 0, description: 'Relevance: higher is better; only comparable within one search.' }),
  snippets: Type.Array(Snippet, {
    maxItems: SEARCH_SNIPPETS_PER_HIT,
    description: `Up to ${SEARCH_SNIPPETS_PER_HIT} short passages around the matches in the title, description and content of the matched version.`,
  }),
})
export type SearchHit = Static<typeof SearchHit>

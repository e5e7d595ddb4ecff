/**
 * The documents of bench/search: deterministic Markdown of 1–20 KiB (log-uniform: most are short,
 * some are long), as a team's notes, specs and runbooks read. Words follow a Zipf law over an
 * engineering vocabulary, so that common words are in most documents and rarer ones in few; code
 * fences and inline code carry identifiers (`camelCase`, `ERR_CODES`) made of those words, and one
 * document in twenty has a paragraph in Chinese or Japanese. The same artifact number gives the
 * same document on every run and machine (bench/prng.ts).
 */
import { prng } from '../prng.ts'

/** The engineering vocabulary, most frequent first (no stop words: those are drawn apart). */
const VOCABULARY = `
  service data system request user version change team release server time error update document
  process build test deploy config client cache file review query index project access token
  support issue record design event limit message report policy network storage schema account
  performance migration rollout backup metric monitor queue worker latency replication region
  session owner database feature workflow branch commit incident security network page action
  content search table node cluster plan status state field value module package library script
  alert dashboard endpoint handler router gateway proxy balancer certificate secret key vault
  permission role member workspace artifact history audit trail snapshot restore archive export
  import format parser renderer template layout component style theme font icon image preview
  thread lock mutex channel signal timer retry backoff timeout deadline budget quota capacity
  throughput bandwidth memory heap stack buffer stream socket connection pool transaction commit
  rollback checkpoint journal segment partition shard lease replica leader follower election vote
  consensus quorum heartbeat gossip membership topology placement scheduler allocator executor
  pipeline stage artifact binary image container registry manifest layer volume mount network
  namespace label annotation selector controller operator reconciler webhook admission policy
  tenant customer invoice billing subscription plan trial discount coupon refund payment ledger
  balance transfer account statement settlement merchant checkout cart order shipment warehouse
  inventory catalog product price currency tax region locale language translation timezone
  calendar meeting agenda minutes decision proposal roadmap milestone sprint backlog estimate
  priority severity escalation oncall pager rotation handover postmortem remediation mitigation
  root cause analysis timeline impact customer communication status page outage degradation
  recovery failover drill chaos experiment hypothesis observation benchmark profile flame graph
  trace span sampling exporter collector agent sidecar mesh ingress egress firewall subnet route
  address resolver record zone domain registrar expiry renewal rotation credential password hash
  salt cipher signature verification encryption decryption compliance retention deletion privacy
  consent request subject erasure portability contract vendor procurement review approval sign
  legal counsel risk register control evidence auditor finding exception waiver threshold target
  objective indicator agreement error budget burn rate window alerting paging noise fatigue
  dependency upgrade vulnerability patch advisory scanner baseline exposure surface attacker
  threat model boundary isolation sandbox privilege escalation injection validation sanitizer
  encoding escaping header cookie origin redirect callback authorization grant scope consent
  device browser mobile desktop tablet screen viewport gesture keyboard shortcut accessibility
  contrast focus landmark heading label caption transcript subtitle locale bidirectional glyph
  kernel driver firmware boot loader partition filesystem inode block sector disk controller
  compiler linker optimizer interpreter bytecode runtime garbage collector allocation pause
  generation compaction fragmentation tombstone bloom filter compression dictionary entropy
  codec sample frame packet jitter buffer playback recording microphone camera sensor reading
  calibration drift offset clock skew synchronization ordering causality vector lamport hybrid
  idempotency deduplication outbox inbox saga compensation orchestration choreography contract
  schema evolution compatibility deprecation sunset notice changelog semver breaking minor major
  spreadsheet notebook chart figure caption appendix glossary footnote citation bibliography
  wiki handbook onboarding checklist runbook playbook procedure escalation matrix contact roster
  estimate forecast variance regression outlier percentile median average histogram bucket
  experiment cohort funnel retention churn activation conversion engagement survey feedback
  interview persona journey prototype wireframe mockup usability finding recommendation
`
  .split(/\s+/)
  .filter(Boolean)

/** Short English words drawn between the vocabulary's, as prose has them. */
const GLUE = 'the of and to in a is that for on with as by this be are from at or an it we our not can when which will'.split(' ')

/** Paragraphs in Chinese and Japanese; 数据库迁移 ("database migration") is in two of them. */
const CJK = [
  '数据库迁移需要在维护窗口内完成，并提前通知所有相关团队。',
  '我们在上线前对数据库迁移脚本进行了三次演练，确认回滚步骤可行。',
  '本周的发布计划包括搜索服务的性能优化和监控告警的调整。',
  '请在文档中记录每一次配置变更的原因和负责人。',
  '缓存命中率下降导致接口延迟明显上升，需要进一步分析。',
  '新的权限模型将在下个季度推广到所有工作空间。',
  '会议纪要：确认了里程碑时间表，并分配了后续任务。',
  '日志保留策略调整为九十天，超过期限的数据将被归档。',
  'リリース前にステージング環境で負荷試験を実施してください。',
  '障害の根本原因は証明書の期限切れでした。再発防止策を検討します。',
  '検索インデックスの再構築は夜間バッチで行います。',
  'アクセス権限の見直しは四半期ごとに実施されます。',
  '새로운 배포 파이프라인은 다음 주부터 사용됩니다.',
  '장애 대응 절차를 문서로 정리하고 팀과 공유했습니다.',
]

/** A planted identifier, in about one document in a thousand: what the rare-identifier query finds. */
export const RARE_IDENTIFIER = 'ERR_SHARD_LEASE_EXPIRED'
/** Two words of the vocabulary, ranked 59th and 120th: each in a good share of documents, together in fewer. */
export const COMMON_WORDS = 'replication timeout'
/** A CJK term: in about two documents of the corpus's 20 × 14 / 2 per thousand. */
export const CJK_TERM = '数据库迁移'

/** Zipf weights over the vocabulary: the cumulative table a uniform draw is looked up in. */
const cumulative = (() => {
  const weights = VOCABULARY.map((_, rank) => 1 / (rank + 3))
  const total = weights.reduce((a, b) => a + b, 0)
  let sum = 0
  return weights.map((w) => {
    sum += w / total
    return sum
  })
})()

/** The document of artifact `n` under `seed`: its title, description and Markdown content. */
export function document(seed: number, n: number, plantRare: boolean): { title: string; description: string; content: string } {
  const random = prng(seed * 1_000_003 + n)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T
  const word = (): string => {
    const u = random()
    let lo = 0
    let hi = cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if ((cumulative[mid] ?? 1) < u) lo = mid + 1
      else hi = mid
    }
    return VOCABULARY[lo] ?? 'data'
  }
  const capital = (w: string) => w.charAt(0).toUpperCase() + w.slice(1)
  const identifier = (): string => {
    const parts = [word(), word(), ...(random() < 0.4 ? [word()] : [])]
    if (random() < 0.35) return `ERR_${parts.map((p) => p.toUpperCase()).join('_')}`
    return [parts[0] ?? 'get', ...parts.slice(1).map(capital)].join('')
  }
  const sentence = (): string => {
    const length = 6 + Math.floor(random() * 13)
    const words: string[] = []
    for (let i = 0; i < length; i++) {
      const r = random()
      words.push(r < 0.05 ? `\`${identifier()}\`` : r < 0.45 ? pick(GLUE) : word())
    }
    return `${capital(words.join(' '))}${random() < 0.1 ? '?' : '.'}`
  }
  const paragraph = (sentences: number) => Array.from({ length: sentences }, sentence).join(' ')
  const title = Array.from({ length: 3 + Math.floor(random() * 4) }, word)
    .map(capital)
    .join(' ')
  const description = random() < 0.5 ? '' : sentence()
  const cjk = random() < 0.05
  // Log-uniform between 1 and 20 KiB.
  const target = Math.floor(1024 * 20 ** random())
  const blocks = [`# ${title}`, paragraph(2 + Math.floor(random() * 4))]
  let size = blocks.join('\n\n').length
  const rareAt = plantRare ? 2 + Math.floor(random() * 3) : -1
  while (size < target) {
    const r = random()
    let block: string
    if (blocks.length === rareAt) block = `If the lease is lost, the shard answers \`${RARE_IDENTIFIER}\` and the caller retries.`
    else if (r < 0.12)
      block = `## ${Array.from({ length: 2 + Math.floor(random() * 3) }, word)
        .map(capital)
        .join(' ')}`
    else if (r < 0.55) block = paragraph(2 + Math.floor(random() * 6))
    else if (r < 0.7) block = Array.from({ length: 3 + Math.floor(random() * 5) }, () => `- ${sentence()}`).join('\n')
    else if (r < 0.8) {
      const lines = Array.from({ length: 3 + Math.floor(random() * 8) }, () => `${identifier()}(${word()}, ${identifier()})`)
      block = `\`\`\`ts\n${lines.join('\n')}\n\`\`\``
    } else if (r < 0.87) {
      const row = () => `| ${word()} | ${Math.floor(random() * 1000)} | ${word()} ${word()} |`
      block = ['| name | count | note |', '| --- | --- | --- |', ...Array.from({ length: 2 + Math.floor(random() * 6) }, row)].join('\n')
    } else if (r < 0.93) block = `> ${sentence()} See [${word()}](https://example.com/${word()}/${word()}).`
    else if (cjk) block = `${pick(CJK)}${pick(CJK)}`
    else block = paragraph(3)
    if (size + block.length + 2 > 20 * 1024) break
    blocks.push(block)
    size += block.length + 2
  }
  return { title, description, content: `${blocks.join('\n\n')}\n` }
}

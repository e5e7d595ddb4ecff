/**
 * The baseline: a bare Fastify + pg server doing the least a database-backed route can do.
 * GET /row/:id is one primary-key SELECT; POST /row is one INSERT. Same pool size as Quire.
 */
import Fastify from 'fastify'
import pg from 'pg'

const url = process.env.BASELINE_DATABASE_URL
const port = Number(process.env.BASELINE_PORT ?? 3101)
if (!url) throw new Error('BASELINE_DATABASE_URL is required')
const pool = new pg.Pool({ connectionString: url, max: Number(process.env.BASELINE_POOL_SIZE ?? 10) })

const app = Fastify({ logger: false })
app.get<{ Params: { id: string } }>(
  '/row/:id',
  { schema: { params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } } },
  async (request, reply) => {
    const { rows } = await pool.query('SELECT id, body FROM bench_rows WHERE id = $1', [request.params.id])
    if (rows.length === 0) return reply.code(404).send({ error: 'not found' })
    return rows[0]
  },
)
app.post<{ Body: { body: string } }>(
  '/row',
  { schema: { body: { type: 'object', properties: { body: { type: 'string' } }, required: ['body'] } } },
  async (request, reply) => {
    const { rows } = await pool.query('INSERT INTO bench_appends (body) VALUES ($1) RETURNING id', [request.body.body])
    return reply.code(201).send(rows[0])
  },
)
await app.listen({ port, host: '127.0.0.1' })
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.on(
    signal,
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  )

import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider'

interface Entry {
  readonly payload: AdapterPayload
  /** Epoch milliseconds; Infinity when the provider gave no lifetime. */
  readonly expiresAt: number
}

/**
 * The development provider's state (interactions, sessions, codes, tokens, grants), in this
 * process's memory, one store per provider instance: it is lost on restart, which for local
 * sign-in only means signing in again. Expired entries are dropped when read.
 */
export function memoryAdapter(): AdapterFactory {
  const entries = new Map<string, Entry>()
  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key)
    if (entry && entry.expiresAt <= Date.now()) entries.delete(key)
    return entry && entry.expiresAt > Date.now() ? entry.payload : undefined
  }
  return (model: string): Adapter => {
    const keyOf = (id: string) => `${model}:${id}`
    const findBy = (field: 'uid' | 'userCode', value: string) => {
      for (const [key, entry] of entries) {
        if (key.startsWith(`${model}:`) && entry.payload[field] === value) return live(key)
      }
      return undefined
    }
    return {
      async upsert(id, payload, expiresIn) {
        entries.set(keyOf(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY })
      },
      find: async (id) => live(keyOf(id)),
      findByUid: async (uid) => findBy('uid', uid),
      findByUserCode: async (userCode) => findBy('userCode', userCode),
      async consume(id) {
        const payload = live(keyOf(id))
        if (payload) payload.consumed = Math.floor(Date.now() / 1000)
      },
      async destroy(id) {
        entries.delete(keyOf(id))
      },
      async revokeByGrantId(grantId) {
        for (const [key, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(key)
      },
    }
  }
}

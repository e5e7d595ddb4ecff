/**
 * tooling/scripts/test-prerequisites.sh, the machine's part of the README's test line, when it may
 * not install what is missing: it must stop at once with one message naming the exact command, and
 * install nothing. "At once" (packages/testing/src/waits.ts): without starting any of the script's waits,
 * 30 s for a service it started to answer, up to 300 s for apt-get's lock, or a password prompt. Something is missing on any machine here: the script runs on a
 * PATH made of this machine's programs without `secret-tool` (and without the real `sudo` and
 * `apt-get`; stand-ins record what they are asked).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { finish, spawnTracked } from '@quire/testing/processes'
import { atOnceMs, timeoutFor } from '@quire/testing/waits'
import { afterAll, describe, expect, it } from 'vitest'

const script = resolve(import.meta.dirname, '../scripts/test-prerequisites.sh')
const scratch = mkdtempSync(join(tmpdir(), 'quire-prereq-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const asRoot = process.getuid?.() === 0
const nobody = 65534

/** A PATH directory: every program of this machine's PATH but `left out`, plus stand-ins that log their arguments. */
function pathWithout(name: string, leftOut: readonly string[], standIns: Record<string, number>): { bin: string; log: string } {
  const bin = join(scratch, name)
  mkdirSync(bin)
  const logDir = join(scratch, `${name}-log`)
  mkdirSync(logDir)
  chmodSync(logDir, 0o777)
  const log = join(logDir, 'calls')
  for (const dir of ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin']) {
    if (!existsSync(dir)) continue
    for (const entry of readdirSync(dir)) {
      if (leftOut.includes(entry) || entry in standIns || existsSync(join(bin, entry))) continue
      symlinkSync(join(dir, entry), join(bin, entry))
    }
  }
  for (const [program, status] of Object.entries(standIns)) {
    writeFileSync(join(bin, program), `#!/bin/sh\necho "${program} $*" >> ${log}\nexit ${status}\n`)
    chmodSync(join(bin, program), 0o755)
  }
  chmodSync(join(scratch), 0o755)
  chmodSync(bin, 0o755)
  return { bin, log }
}

/** Runs the script to its end (one wait: packages/testing/src/waits.ts). */
async function run(bin: string, options: { uid?: number; env?: Record<string, string> } = {}) {
  const env = { PATH: bin, HOME: scratch, LANG: 'C.UTF-8', ...options.env }
  const command =
    options.uid === undefined
      ? ['sh', script]
      : ['setpriv', `--reuid=${options.uid}`, `--regid=${options.uid}`, '--clear-groups', 'sh', script]
  const done = await finish(spawnTracked(command[0] ?? 'sh', command.slice(1), { env, stdio: ['pipe', 'pipe', 'pipe'] }))
  return { status: done.code, stdout: done.stdout, stderr: done.stderr, ms: done.ms }
}

const calls = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [])

describe('the test prerequisites, when they cannot be installed', { timeout: timeoutFor(1) }, () => {
  it('stops at once, not root and sudo asking for a password, with one message naming the sudo command; nothing installed', async () => {
    const { bin, log } = pathWithout('no-sudo', ['secret-tool', 'apt', 'aptitude'], { sudo: 1, 'apt-get': 0 })
    // As nobody when the tests run as root (setpriv: no sudo, no password, no terminal).
    const done = await run(bin, asRoot ? { uid: nobody } : {})
    expect(done.status, done.stderr).toBe(2)
    expect(done.ms).toBeLessThan(atOnceMs)
    const lines = done.stderr.trim().split('\n')
    expect(lines.filter((line) => line.startsWith('test-prerequisites:'))).toHaveLength(1)
    expect(lines[0]).toContain('root or sudo without a password')
    // The exact command: the Secret Service packages as one group (with whatever else is missing here).
    expect(done.stderr).toMatch(/^ {4}sudo apt-get install -y (\S+ )*gnome-keyring dbus dbus-x11 libsecret-tools( \S+)*$/m)
    expect(done.stdout).toBe('')
    // sudo was only asked whether it needs a password; apt-get was never run.
    expect(calls(log)).toEqual(['sudo -n true'])
  })

  it.runIf(asRoot)('stops at once, as root on a machine without apt-get, naming the packages to install', async () => {
    const { bin, log } = pathWithout('no-apt', ['secret-tool', 'apt-get', 'apt', 'aptitude'], { sudo: 0 })
    const done = await run(bin)
    expect(done.status, done.stderr).toBe(2)
    expect(done.ms).toBeLessThan(atOnceMs)
    expect(
      done.stderr
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('test-prerequisites:')),
    ).toHaveLength(1)
    expect(done.stderr).toContain('there is no apt-get here')
    expect(done.stderr).toMatch(/^ {4}apt-get install -y (\S+ )*gnome-keyring dbus dbus-x11 libsecret-tools( \S+)*$/m)
    expect(calls(log)).toEqual([])
  })

  it('names haproxy and pgbouncer when they are missing (the topology test runs them)', async () => {
    const { bin, log } = pathWithout('no-balancer', ['haproxy', 'pgbouncer', 'apt', 'aptitude'], { sudo: 1, 'apt-get': 0 })
    // Not in /usr/sbin either (the script looks there too, for users whose PATH leaves it out).
    const done = await run(bin, { ...(asRoot ? { uid: nobody } : {}), env: { QUIRE_PREREQ_SBIN: join(scratch, 'empty') } })
    expect(done.status, done.stderr).toBe(2)
    expect(done.stderr).toMatch(/^ {4}sudo apt-get install -y (\S+ )*haproxy pgbouncer( \S+)*$/m)
    expect(calls(log)).toEqual(['sudo -n true'])
  })
})

import { type ChildProcess, spawnSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { processAlive, signalGroup, spawnTracked, watch } from '@quire/testing/processes'
import { until, untilExit, untilLine, waitBudgetMs } from '@quire/testing/waits'
import { type Finished, finish } from './quire-process.ts'

/**
 * A real Secret Service for the keyring tests, as CI runs it (research/stack-probe.md §3): a
 * private D-Bus session from `dbus-run-session`, in which gnome-keyring's secrets component is
 * unlocked with a password, its keyring files in a temporary directory. The session stays up for
 * the whole test file; each `quire` process joins it through `DBUS_SESSION_BUS_ADDRESS`, as a
 * process of a desktop session would. Stopping it ends the bus and the daemon with it: the session
 * leads a process group (packages/testing/src/processes.ts) that the daemon stays in, so that nothing of
 * it outlives the test file even when its set-up fails.
 */
export interface SecretService {
  /** The environment a process needs to reach this Secret Service. */
  readonly env: Readonly<Record<string, string>>
  /** Runs `secret-tool` (libsecret) in the session, for assertions from outside the CLI. */
  secretTool(args: readonly string[]): Promise<Finished>
  /** Pauses (SIGSTOP) or resumes (SIGCONT) the keyring daemon: a store that stops answering. */
  freeze(frozen: boolean): void
  stop(): Promise<void>
}

const required = ['dbus-run-session', 'gnome-keyring-daemon', 'dbus-send', 'secret-tool']

/** Fails with the install line when the tools are missing (the tests never skip silently). */
export function assertSecretServiceTools(): void {
  const missing = required.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
  if (missing.length > 0) {
    throw new Error(
      `Missing ${missing.join(', ')}: install them with \`apt-get install -y gnome-keyring dbus dbus-x11 libsecret-tools\` (tooling/scripts/test-prerequisites.sh, which the README's test line runs, does).`,
    )
  }
}

// The shell in the session: unlock (which starts the daemon), wait until the daemon owns its bus
// name (for most of a wait's budget, packages/testing/src/waits.ts: then it says so before the test's wait
// for its line gives up), say where the bus is and which process serves it, then hold the session
// open until standard input closes.
const daemonBudgetS = Math.floor(waitBudgetMs / 1000) - 10
const sessionScript = `
printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 1
deadline=$(($(date +%s) + ${daemonBudgetS}))
while :; do
  pid=$(dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \\
    org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null | sed -n 's/.*uint32 \\([0-9]*\\).*/\\1/p')
  [ -n "$pid" ] || [ "$(date +%s)" -ge "$deadline" ] && break
  sleep 0.1
done
[ -n "$pid" ] || { echo "gnome-keyring-daemon did not take org.freedesktop.secrets in ${daemonBudgetS} s" >&2; exit 1; }
printf 'ready %s %s\\n' "$pid" "$DBUS_SESSION_BUS_ADDRESS"
exec cat >/dev/null
`

export async function startSecretService(): Promise<SecretService> {
  assertSecretServiceTools()
  const home = await mkdtemp(join(tmpdir(), 'quire-keyring-'))
  const sessionEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_RUNTIME_DIR: home,
    KEYRING_PASSWORD: 'quire-test-keyring',
  }
  const session: ChildProcess = spawnTracked('dbus-run-session', ['--', 'sh', '-c', sessionScript], {
    env: sessionEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const watched = watch(session)
  let pid: number
  let address: string
  try {
    const [, daemon, bus] = await untilLine(watched, /^ready (\d+) (\S+)$/)
    ;[pid, address] = [Number(daemon), bus as string]
  } catch (error) {
    // The session and whatever it started go, then its files.
    signalGroup(session, 'SIGKILL')
    await watched.exited
    await rm(home, { recursive: true, force: true })
    throw error
  }
  const env = { DBUS_SESSION_BUS_ADDRESS: address }

  const run = (command: string, args: readonly string[]) => {
    const child = spawnTracked(command, args, { env: { ...sessionEnv, ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
    return finish(child)
  }
  return {
    env,
    secretTool: (args) => run('secret-tool', args),
    freeze(frozen) {
      process.kill(pid, frozen ? 'SIGSTOP' : 'SIGCONT')
    },
    async stop() {
      try {
        process.kill(pid, 'SIGCONT')
      } catch {}
      try {
        session.stdin?.end()
        await untilExit(watched)
        // The daemon leaves when its bus goes away (and is killed with the session's group); make
        // sure of it before removing its files.
        await until(`gnome-keyring-daemon (pid ${pid}) to leave with its session`, () => !processAlive(pid), { everyMs: 100 })
      } catch (error) {
        signalGroup(session, 'SIGKILL')
        if (processAlive(pid)) process.kill(pid, 'SIGKILL')
        throw error
      } finally {
        await rm(home, { recursive: true, force: true })
      }
    },
  }
}

// The real companion for the end-to-end tests: `citelens serve` on a free port with its own
// XDG_CONFIG_HOME, allowed to fetch the local cited-pages server (api.md conventions).
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** `CITELENS` if set, else the project's virtualenv, else whatever is on PATH. */
export function citelensCommand() {
  if (process.env.CITELENS) return process.env.CITELENS;
  const venv = path.join(ROOT, '.venv', 'bin', 'citelens');
  return existsSync(venv) ? venv : 'citelens';
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * @param {{allowPrivate: string[]}} options  host:port pairs the companion may fetch from
 * @returns {Promise<{base: string, token: string, log: () => string, stop: () => Promise<void>}>}
 */
export async function startCompanion({ allowPrivate }) {
  const command = citelensCommand();
  const home = mkdtempSync(path.join(tmpdir(), 'citelens-xdg-'));
  const env = { ...process.env, XDG_CONFIG_HOME: home };
  const port = await freePort();
  const args = ['serve', '--port', String(port), ...allowPrivate.flatMap((a) => ['--allow-private', a])];
  // CITELENS_MODEL: another models/<name>/ folder (a candidate model); default the shipped one.
  if (process.env.CITELENS_MODEL) args.push('--model', process.env.CITELENS_MODEL);
  let output = '';
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.once('error', (error) => (output += `\n${error.message}`));

  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000; // loading the ONNX model takes a few seconds on 2 cores
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`\`${command} ${args.join(' ')}\` exited before it answered:\n${output}`);
    }
    try {
      const response = await fetch(`${base}/v1/health`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`the companion did not answer /v1/health within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  // `citelens token` prints the token as the last word of its line (api.md).
  const printed = execFileSync(command, ['token'], { env, encoding: 'utf8' });
  const token = printed.trim().split('\n').pop().trim().split(/\s+/).pop();
  return {
    base,
    token,
    log: () => output,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

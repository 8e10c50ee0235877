/**
 * A CLI that never leaves a user guessing, through the real CLI: a command line it cannot act
 * on exits 2 with one sentence and the usage line; an unknown command is named as one; no
 * coordinator gives one sentence saying how to start one; a missing file names itself; and the
 * bash and zsh completion scripts complete commands, options and file names.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../conformance/cli-process.js';
import { freePort } from '@tideway/testing';

const dir = mkdtempSync(join(tmpdir(), 'tideway-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const job = join(dir, 'job.conf');
writeFileSync(
  job,
  'env { job.mode = "BATCH" }\nsource { FakeSource { row.num = 1, schema = { fields { id = int } } } }\nsink { Console {} }\n',
);

const MISUSES: Array<{ args: string[]; says: RegExp; usage: string }> = [
  {
    args: ['frobnicate'],
    says: /^tideway: unknown command 'frobnicate' for 'tideway': the commands are run, .*completion$/,
    usage: 'usage: tideway [options] <command>',
  },
  {
    args: ['cluster', 'stop'],
    says: /^tideway: unknown command 'stop' for 'tideway cluster': the commands are certs, drain, undrain, step-down, start$/,
    usage: 'usage: tideway cluster [options] <command>',
  },
  {
    args: ['run'],
    says: /^tideway: required option '-c, --config <file>' not specified for 'tideway run'$/,
    usage: 'usage: tideway run -c <file> [options]',
  },
  {
    args: ['run', '-c', job, '--bogus'],
    says: /^tideway: unknown option '--bogus' for 'tideway run'$/,
    usage: 'usage: tideway run -c <file> [options]',
  },
  {
    args: ['run', '-c'],
    says: /^tideway: option '-c, --config <file>' argument missing for 'tideway run'$/,
    usage: 'usage: tideway run -c <file> [options]',
  },
  { args: ['--frob'], says: /^tideway: unknown option '--frob' for 'tideway submit'$/, usage: 'usage: tideway submit -c <file> [options]' },
  {
    args: ['status'],
    says: /^tideway: missing required argument 'jobId' for 'tideway status'$/,
    usage: 'usage: tideway status [options] <jobId>',
  },
  {
    args: ['status', '1', '2'],
    says: /^tideway: too many arguments for 'status'\. Expected 1 argument but got 2$/,
    usage: 'usage: tideway status [options] <jobId>',
  },
  {
    args: ['cancel'],
    says: /^tideway: missing required argument 'jobId' for 'tideway cancel'$/,
    usage: 'usage: tideway cancel [options] <jobId...>',
  },
  {
    args: ['cluster', 'start'],
    says: /^tideway: required option '--role <role>' not specified for 'tideway cluster start'$/,
    usage: 'usage: tideway cluster start --role <role> [options]',
  },
  {
    args: ['completion', 'fish'],
    says: /^tideway: unknown shell 'fish' for 'tideway completion': expected bash or zsh$/,
    usage: 'usage: tideway completion [options] <shell>',
  },
];

describe('usage errors', () => {
  it.each(MISUSES)('tideway $args: exit 2, one sentence and the usage line', async ({ args, says, usage }) => {
    const res = await runCli(args);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(says), usage]);
    expect(res.stdout).toBe('');
  });

  it('tideway alone, or a command group alone, shows the help and exits 2', async () => {
    for (const args of [[], ['cluster']]) {
      const res = await runCli(args);
      expect(res.code, `tideway ${args.join(' ')}`).toBe(2);
      expect(res.stderr).toMatch(/^Usage: tideway/);
    }
  });

  it('--help and --version exit 0', async () => {
    expect((await runCli(['--help'])).code).toBe(0);
    expect((await runCli(['run', '--help'])).code).toBe(0);
    expect((await runCli(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('no coordinator', () => {
  it.each([['list'], ['status', '1'], ['cancel', '1'], ['metrics', '1'], ['overview'], ['submit', '-c', job, '--async']])(
    'tideway %s: one sentence naming the address and how to start one',
    async (...args) => {
      const port = await freePort();
      const res = await runCli([...args, '--address', `127.0.0.1:${port}`]);
      expect(res.code).toBe(1);
      expect(res.stderr.trimEnd().split('\n')).toEqual([
        `tideway: cannot reach the coordinator at 127.0.0.1:${port}: connection refused; start one with 'tideway cluster start --role all' (docs/cluster.md), or point --address or TIDEWAY_ADDRESS at a running one [TW-NET-001]`,
      ]);
    },
  );
});

describe('files the CLI reads name themselves', () => {
  it.each([
    [['run', '-c', job, '--engine-config', '/nope.yaml'], '/nope.yaml: cannot read the engine config: no such file'],
    [['cluster', 'start', '--role', 'worker', '--engine-config', '/nope.yaml'], '/nope.yaml: cannot read the engine config: no such file'],
    [['list', '--engine-config', '/nope.yaml'], '/nope.yaml: cannot read the engine config: no such file'],
    [['run', '-c', '/nope.conf'], '/nope.conf: cannot read the job config: no such file'],
    [['plan', '-c', '/nope.conf'], '/nope.conf: cannot read the job config: no such file'],
    [['run', '-c', dir], `${dir}: cannot read the job config: it is a folder, not a file`],
  ])('tideway %j', async (args, says) => {
    const res = await runCli(args);
    expect(res.code).toBe(2);
    expect(res.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(`tideway: ${says}`)]);
  });
});

describe('shell completion', () => {
  const bashFile = join(dir, 'completion.bash');
  const zshFile = join(dir, 'completion.zsh');

  it('prints a script for bash and for zsh', async () => {
    for (const shell of ['bash', 'zsh']) {
      const res = await runCli(['completion', shell]);
      expect(res.code, res.stderr).toBe(0);
      writeFileSync(join(dir, `completion.${shell}`), res.stdout);
    }
  });

  /** What bash offers for the words typed so far (the last one being completed). */
  const bash = (...words: string[]) => {
    const line = ['tideway', ...words];
    const res = spawnSync(
      'bash',
      [
        '-c',
        `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _tideway; printf '%s\\n' "\${COMPREPLY[@]}"`,
        'bash',
        bashFile,
        ...line,
      ],
      { encoding: 'utf8', cwd: dir },
    );
    expect(res.stderr).toBe('');
    return res.stdout.split('\n').filter(Boolean).sort();
  };

  it('bash completes commands, subcommands, options and file names', () => {
    expect(bash('')).toEqual([
      'cancel',
      'chaos',
      'checkpoint',
      'checkpoints',
      'cluster',
      'compat',
      'completion',
      'decrypt',
      'describe',
      'encrypt',
      'iceberg',
      'list',
      'logs',
      'metrics',
      'overview',
      'plan',
      'plugin',
      'plugins',
      'restore',
      'run',
      'savepoint',
      'status',
      'submit',
      'token',
      'verify',
    ]);
    expect(bash('ru')).toEqual(['run']);
    expect(bash('cluster', '')).toEqual(['certs', 'drain', 'start', 'step-down', 'undrain']);
    expect(bash('plugins', '')).toEqual(['describe', 'install', 'list', 'remove']);
    expect(bash('iceberg', '')).toEqual(['expire-snapshots', 'remove-orphan-files', 'rewrite-data-files']);
    expect(bash('run', '--eng')).toEqual(['--engine-config']);
    expect(bash('run', '--restore-')).toEqual(['--restore-with-checkpoint']);
    expect(bash('cluster', 'start', '--ro')).toEqual(['--role']);
    expect(bash('run', '-c', 'jo')).toEqual(['job.conf']);
    expect(bash('run', '--engine-config', 'comp')).toEqual(['completion.bash', 'completion.zsh']);
  });

  it('zsh loads the script under compinit, registers it for tideway, and offers the same words', () => {
    const zsh = (body: string) =>
      spawnSync('zsh', ['-f', '-c', `autoload -U compinit; compinit -u -D; source "${zshFile}"; ${body}`], { encoding: 'utf8', cwd: dir });
    const registered = zsh('print -r -- ${_comps[tideway]}');
    expect(registered.stderr).toBe('');
    expect(registered.stdout.trim()).toBe('_tideway');
    const offered = zsh('_tideway_candidates "$(_tideway_path cluster start)" --r --r; _tideway_candidates run x -c');
    expect(offered.stdout.trim().split('\n')).toEqual([expect.stringContaining('--role'), '@files']);
  });
});

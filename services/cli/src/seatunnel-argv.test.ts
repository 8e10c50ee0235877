import { describe, expect, it } from 'vitest';
import { translateSeaTunnelArgv } from './seatunnel-argv.js';

describe("SeaTunnel's command line", () => {
  it.each([
    [
      ['-c', 'a.conf', '-m', 'local'],
      ['run', '-c', 'a.conf'],
    ],
    [
      ['-c', 'a.conf'],
      ['submit', '-c', 'a.conf'],
    ],
    [
      ['-c', 'a.conf', '--check'],
      ['plan', '-c', 'a.conf', '--check'],
    ],
    [
      ['-can', '1', '2'],
      ['cancel', '1', '2'],
    ],
    [['-l'], ['list']],
    [
      ['-j', '7'],
      ['status', '7'],
    ],
    [
      ['--metrics', '7'],
      ['metrics', '7'],
    ],
    [
      ['-s', '7'],
      ['savepoint', '7'],
    ],
    [
      ['-r', '7', '-c', 'a.conf'],
      ['restore', '7', '-c', 'a.conf'],
    ],
    [
      ['-r', '7', '-c', 'a.conf', '-m', 'local'],
      ['run', '-r', '7', '-c', 'a.conf'],
    ],
    [
      ['--restore-with-checkpoint', '7', '-c', 'a.conf', '-m', 'local'],
      ['run', '--restore-with-checkpoint', '7', '-c', 'a.conf'],
    ],
    [
      ['-c', 'a.conf', '--restore-with-checkpoint', '7', '--set-job-id', '8'],
      ['submit', '-c', 'a.conf', '--restore-with-checkpoint', '7', '--set-job-id', '8'],
    ],
    [
      ['-c', 'a.conf', '--encrypt'],
      ['encrypt', '-c', 'a.conf'],
    ],
    [
      ['--decrypt', '-c', 'a.conf'],
      ['decrypt', '-c', 'a.conf'],
    ],
    [
      ['run', '-c', 'a.conf'],
      ['run', '-c', 'a.conf'],
    ],
    [
      ['frobnicate', '-c', 'a.conf'],
      ['frobnicate', '-c', 'a.conf'],
    ],
  ])('%j -> %j', (argv, expected) => {
    expect(translateSeaTunnelArgv(argv)).toEqual(expected);
  });
});

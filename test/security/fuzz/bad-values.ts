import type { SeededRandom } from './seeded-random.js';

/** Job ids no cluster has: too long, negative, not digits, digits of no job. */
export function unknownJobId(rng: SeededRandom): string {
  return rng.pick([
    '',
    '0',
    '-1',
    '1',
    '99999999999999999999999',
    `9${String(rng.int(1e9)).padStart(17, '0')}`,
    '../../etc/passwd',
    '%00',
    'jobid',
    ' 12 ',
    '1e3',
    'x'.repeat(1 + rng.int(5000)),
    rng.text(1 + rng.int(40)),
  ]);
}

/** Numbers a field should not hold. */
export function badNumber(rng: SeededRandom): number {
  return rng.pick([-1, -(2 ** 31), 2 ** 31, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 999, 7, 0.5, 1e15]);
}

/**
 * Job configs that are never valid, each broken in its own way: syntax, wrong types, unknown
 * plugins and options, deep nesting, substitution bombs, missing sections.
 */
export function badConfig(rng: SeededRandom): { text: string; format: 'hocon' | 'json' } {
  const deep = 65 + rng.int(5000);
  const hocon = (text: string) => ({ text, format: 'hocon' as const });
  const json = (text: string) => ({ text, format: 'json' as const });
  const ok = 'env { job.mode = BATCH }\nsource { FakeSource { row.num = 1, schema { fields { id = int } } } }\nsink { Console {} }\n';
  const choices = [
    () => hocon(rng.text(rng.int(300))),
    () => hocon(ok.slice(0, rng.int(ok.length - 5))),
    () => hocon(ok.replace('row.num = 1', `row.num = ${rng.pick(['"abc"', '[1,2]', '{a: 1}'])}`)),
    () => hocon(ok.replace('FakeSource', rng.pick(['NoSuchSource', 'Fake Source', '"${x}"', 'fakesourc']))),
    () => hocon(ok.replace('row.num = 1', `no_such_option_${rng.int(100)} = 1, row.num = 1`)),
    () => hocon(ok.replace('BATCH', rng.pick(['STREAMINGG', '1', '[]']))),
    () => hocon(ok.replace('Console {}', '')),
    () => hocon(`${ok}x = ${'{a: '.repeat(deep)}1${'}'.repeat(deep)}`),
    () => hocon(`${ok}x = ${'['.repeat(deep)}${']'.repeat(deep)}`),
    () => hocon(`${ok}x${'.a'.repeat(deep)} = 1`),
    () => {
      let t = `${ok}a0 = "xxxxxxxxxx"\n`;
      for (let i = 1; i < 40; i++) t += `a${i} = \${a${i - 1}}\${a${i - 1}}\n`;
      return hocon(t);
    },
    () => {
      let t = `${ok}a0 = [1, 2]\n`;
      for (let i = 1; i < 40; i++) t += `a${i} = [\${a${i - 1}}, \${a${i - 1}}]\n`;
      return hocon(t);
    },
    () => hocon(`${ok}include "/etc/passwd"\n`),
    () => hocon(`${ok}y = \${undefined_variable_${rng.int(100)}}\n`),
    () => json(rng.text(rng.int(300))),
    () => json('{"env": {"job.mode": "BATCH"}, "source": 5, "sink": []}'),
    () => json(`{"env": ${'['.repeat(deep)}${']'.repeat(deep)}}`),
    () => json('{"env": {"job.mode": "BATCH"}, "source": [{"plugin_name": 7}], "sink": [{"plugin_name": "Console"}]}'),
    () => json('[1, 2, 3]'),
    () => json(''),
  ];
  return rng.pick(choices)();
}

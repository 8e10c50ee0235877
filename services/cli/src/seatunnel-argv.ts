/**
 * SeaTunnel's command line (`seatunnel.sh -c job.conf -m local -i k=v -can id ...`) mapped
 * onto Tideway's subcommands, so scripts written for SeaTunnel work unchanged.
 *
 * | SeaTunnel                  | Tideway                       |
 * |----------------------------|-------------------------------|
 * | -c F -m local              | run -c F                      |
 * | -c F [-m cluster]          | submit -c F                   |
 * | -c F --check               | plan -c F --check             |
 * | -r ID -c F                 | restore ID -c F               |
 * | --restore-with-checkpoint ID -c F [--set-job-id N] | submit ... (a new job; -m local: run ...), passed on as it is |
 * | -s ID                      | savepoint ID                  |
 * | -can ID...                 | cancel ID...                  |
 * | -l                         | list                          |
 * | -j ID                      | status ID                     |
 * | --metrics ID               | metrics ID                    |
 * | -c F --encrypt / --decrypt | encrypt -c F / decrypt -c F   |
 */
/**
 * SeaTunnel's command line always starts with a flag; a first word that is not one is a command,
 * passed on as it is (commander names an unknown one as such).
 */
export function translateSeaTunnelArgv(argv: string[]): string[] {
  if (
    argv.length === 0 ||
    !argv[0].startsWith('-') ||
    argv[0] === '--help' ||
    argv[0] === '-h' ||
    argv[0] === '--version' ||
    argv[0] === '-V'
  )
    return argv;
  const rest: string[] = [];
  let command: string | undefined;
  const ids: string[] = [];
  let mode: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const take = () => argv[++i] ?? '';
    switch (a) {
      case '-m':
      case '--master':
        mode = take();
        break;
      case '-e':
      case '--deploy-mode':
        take();
        break;
      case '--check':
        command = 'plan';
        rest.push('--check');
        break;
      case '-can':
      case '--cancel-job':
        command = 'cancel';
        while (argv[i + 1] && !argv[i + 1].startsWith('-')) ids.push(argv[++i]);
        break;
      case '-l':
      case '--list':
        command = 'list';
        break;
      case '-j':
      case '--get_running_job_status':
        command = 'status';
        ids.push(take());
        break;
      case '--metrics':
      case '--get_running_job_metrics':
        command = 'metrics';
        ids.push(take());
        break;
      case '-s':
      case '--savepoint':
        command = 'savepoint';
        ids.push(take());
        break;
      case '--encrypt':
      case '--decrypt':
        command = a.slice(2);
        break;
      case '-r':
      case '--restore':
        command = 'restore';
        ids.push(take());
        break;
      default:
        rest.push(a);
    }
  }
  if (!command) command = mode === 'local' ? 'run' : 'submit';
  // Local mode restores in this process: `run -r <id>`.
  if (command === 'restore' && mode === 'local') return ['run', '-r', ...ids, ...rest];
  return [command, ...ids, ...rest];
}

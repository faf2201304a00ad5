/** `botmesh doctor --backend X` */
import type { Command } from 'commander'
import type { Cli } from '../context.js'
import { ReportedFailure } from '../errors.js'
import { examples, helpParagraph } from '../options.js'
import { diagnose } from '../../operator/doctor.js'
import { doctorView } from '../views/doctor.js'

export function registerDoctor(program: Command, cli: Cli): void {
  program
    .command('doctor')
    .description(
      "check the store a backend URL names: persistence, eviction, replication, clock, version, TLS, the disk's fsync; exit 1 on any fail",
    )
    .addHelpText(
      'after',
      helpParagraph(
        'Each line is ok, warn (a bot starts, but may lose acknowledged writes in a restart, a failover or a power loss; or the setting could not be read) or fail (a bot refuses to start on it, or it loses journal records as it runs), with what to set. The journal is not opened: a server or folder without one is checked too.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'botmesh doctor --backend redis://10.0.0.5:6379',
        "botmesh doctor --backend 'redis://db:6379?requirePersistence=true'  # no AOF: fail",
        'botmesh doctor --backend postgres://bot@db/bot --json',
        'botmesh doctor --backend sqlite:./data/bot.db  # file system, fsync, free space',
      ),
    )
    .action(async () => {
      const config = cli.config()
      const report = await diagnose(config.target, config.open)
      cli.out.result(report, doctorView)
      if (!report.ok) throw new ReportedFailure(`${report.counts.fail} check(s) failed on ${report.backend}`)
    })
}

/**
 * The email drivers (nodemailer, imapflow, mailparser), optional peer dependencies loaded only
 * when an email provider starts, sends or downloads: a missing one fails with one line naming it.
 */
import { loadDriver } from '../shared/driver.js'

/** The three drivers' modules. */
export interface EmailDrivers {
  createTransport: typeof import('nodemailer').createTransport
  ImapFlow: typeof import('imapflow').ImapFlow
  simpleParser: typeof import('mailparser').simpleParser
}

/** Loads the drivers (each once per process, by the module system). */
export async function loadEmailDrivers(): Promise<EmailDrivers> {
  const [nodemailer, imapflow, mailparser] = await Promise.all([
    loadDriver('email', 'nodemailer', () => import('nodemailer')),
    loadDriver('email', 'imapflow', () => import('imapflow')),
    loadDriver('email', 'mailparser', () => import('mailparser')),
  ])
  return {
    createTransport: nodemailer.createTransport,
    ImapFlow: imapflow.ImapFlow,
    simpleParser: mailparser.simpleParser,
  }
}

/** What a backend can do (compaction, salvage, one process at a time…), for commands that adapt to it. */
export { capabilitiesOf, journalPathOf, type BackendCapabilities } from './gateway/open.js'

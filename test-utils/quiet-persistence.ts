/**
 * The suite's Redis (the machine's, and the private servers test-utils/redis.ts starts) runs with
 * `--save "" --appendonly no` on purpose: fast, and thrown away. Every start on it would warn that
 * a restart loses the journal, so this setup file silences exactly that warning for the suite.
 * Other persistence warnings, and every refusal under `requirePersistence`, still come through;
 * the persistence tests (test/backends/persistence-*.test.ts) turn it back on.
 */
import { silencePersistenceWarnings } from '../src/backends/common/persistence.js'

silencePersistenceWarnings((id) => id === 'redis-no-persistence')

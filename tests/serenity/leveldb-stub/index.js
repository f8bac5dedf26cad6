'use strict'
// Stub of @serenityjs/leveldb: only SerenityJS's LevelDB world provider uses it, and the tests run
// the in-memory provider. Opening a LevelDB world fails loudly instead of half-working.
class Leveldb {
  static open () { throw new Error('@serenityjs/leveldb is stubbed in clawcraft tests: use the in-memory world provider') }
}
module.exports = { Leveldb, default: Leveldb }

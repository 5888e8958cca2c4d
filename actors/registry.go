package actors

import cmap "github.com/orcaman/concurrent-map"

// protoactor's process registry is 1,024 buckets of orcaman's concurrent
// map, each made of cmap.SHARD_COUNT (32 by default) shards: 32,768 maps
// and locks made by every actor system, about 4 MB and several
// milliseconds before a daemon or an RPC process can answer. The 1,024
// buckets already spread the locks (ten thousand sessions are ten actors a
// bucket), so one shard each is enough. It is set at init, before any
// actor system exists: a map made with one shard count and read with
// another loses its entries.
func init() { cmap.SHARD_COUNT = registryShards }

const registryShards = 1

package sqlite

import (
	"sync"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// HeapLimit is the soft limit on the memory SQLite allocates in this
// process, for all embedded stores and connections together: page caches,
// prepared statements, schemas and scratch. Past it, SQLite frees cached
// pages (least recently used first) before it allocates more, so that its
// memory levels off once the caches are warm instead of growing with the
// stores up to every connection's cache_size (WriterCacheKiB and
// ReaderCacheKiB, still each connection's own bound). Pages it gives up stay
// in the operating system's file cache. The limit is soft: memory that cannot
// be freed (statements in use, open transactions) may pass it, and no
// allocation fails because of it. BENCHMARKS.md (issue 9's soak) has the
// measurements.
const HeapLimit = 64 << 20

// statsMu serialises calls into SQLite's C code on statsTLS, which is not
// safe for concurrent use.
var (
	statsMu  sync.Mutex
	statsTLS *libc.TLS
)

// init turns on SQLite's memory accounting, which the driver's build leaves
// off (SQLITE_DEFAULT_MEMSTATUS=0) and without which neither MemoryUsed nor
// the soft heap limit works, and sets HeapLimit. The accounting can only be
// changed while the library is shut down, so this runs before any
// connection exists: the driver registers itself in its own init, which Go
// runs before this package's, and opens nothing.
func init() {
	tls := libc.NewTLS()
	statsTLS = tls
	if rc := sqlite3.Xsqlite3_shutdown(tls); rc != sqlite3.SQLITE_OK {
		panic("sqlite: cannot shut down the library to enable memory accounting")
	}
	va := libc.NewVaList(int32(1))
	rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_MEMSTATUS, va)
	libc.Xfree(tls, va)
	if rc != sqlite3.SQLITE_OK {
		panic("sqlite: cannot enable memory accounting")
	}
	if rc := sqlite3.Xsqlite3_initialize(tls); rc != sqlite3.SQLITE_OK {
		panic("sqlite: cannot initialize the library")
	}
	sqlite3.Xsqlite3_soft_heap_limit64(tls, HeapLimit)
}

// SetHeapLimit sets the soft limit on SQLite's memory in this process (see
// HeapLimit, the default) to n bytes; 0 removes it. It is process-wide: the
// last call wins for every store.
func SetHeapLimit(n int64) {
	statsMu.Lock()
	defer statsMu.Unlock()
	sqlite3.Xsqlite3_soft_heap_limit64(statsTLS, max(n, 0))
}

// MemoryUsed returns the bytes SQLite has allocated in this process now, and
// the most it has held at once since the process started.
func MemoryUsed() (now, highwater int64) {
	statsMu.Lock()
	defer statsMu.Unlock()
	return sqlite3.Xsqlite3_memory_used(statsTLS), sqlite3.Xsqlite3_memory_highwater(statsTLS, 0)
}

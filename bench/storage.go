package bench

import (
	"context"
	"errors"
	"os"
	"strings"

	"sparrow/sqlstore"
)

// RelationBytes returns the bytes of the relation tables (following and
// followers with their indexes) over every store of s, and the total size of
// the SQLite files. SQLite: the pages of those tables and indexes from the
// dbstat virtual table (0 if the build has none); MySQL: data_length +
// index_length from information_schema, after ANALYZE TABLE refreshed them.
// Run it after a load's checkpoint, with no server writing.
func RelationBytes(ctx context.Context, s *sqlstore.Store) (relation, files int64, err error) {
	for _, db := range s.Shards().DBs() {
		switch db.Dialect.Name {
		case "sqlite":
			path := strings.TrimPrefix(db.Name, "sqlite:")
			for _, suffix := range []string{"", "-wal", "-shm"} {
				if st, serr := os.Stat(path + suffix); serr == nil {
					files += st.Size()
				}
			}
			var n int64
			if qerr := db.R.QueryRowContext(ctx, "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN "+
				"('following', 'followers', 'idx_following_list', 'idx_follower_list')").Scan(&n); qerr == nil {
				relation += n
			}
		case "mysql":
			if rows, e := db.W.QueryContext(ctx, "ANALYZE TABLE following, followers"); e == nil {
				rows.Close()
			}
			var n int64
			e := db.R.QueryRowContext(ctx, "SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables "+
				"WHERE table_schema = DATABASE() AND table_name IN ('following', 'followers')").Scan(&n)
			err = errors.Join(err, e)
			relation += n
		}
	}
	return relation, files, err
}

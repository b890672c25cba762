package sqlstore

import (
	"context"
	"strings"

	"sparrow"
)

// RelationRow is a whole row of following or followers as stored. Unlike
// sparrow.Edge it keeps state, reblogs and notify as the integers of the row,
// so that the offline tools (sqlstore/bulk, sqlstore/check) compare and copy
// rows exactly.
type RelationRow struct {
	From, To                   sparrow.ID
	State, Reblogs, Notify     int
	Version, EdgeID, UpdatedAt int64
}

// QueryRelationRows runs query, which must select EdgeColumns, on db's read
// pool and returns its rows.
func (db *DB) QueryRelationRows(ctx context.Context, query string, args ...any) ([]RelationRow, error) {
	rows, err := db.R.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, db.Translate(err, "relation rows")
	}
	defer rows.Close()
	var out []RelationRow
	for rows.Next() {
		var r RelationRow
		var from, to int64
		if err := rows.Scan(&from, &to, &r.State, &r.Version, &r.EdgeID, &r.Reblogs, &r.Notify, &r.UpdatedAt); err != nil {
			return nil, db.Translate(err, "relation rows")
		}
		r.From, r.To = sparrow.ID(from), sparrow.ID(to)
		out = append(out, r)
	}
	return out, db.Translate(rows.Err(), "relation rows")
}

// FollowersMirror returns the statement that makes followers rows equal to
// the following rows given, on d: head + RepeatRow(FollowersMirrorColumns, n)
// + tail, with the values of each row appended by AppendFollowersValues. A
// stored followers row with a newer version is left as it is (the version
// guard of ApplyReverse). It writes no counter deltas and no outbox events:
// it exists for the offline tools that copy following rows onto followers
// rows (a bulk load that merges, the relation check's repair) and recount
// the counters afterwards (RecountFollows).
func FollowersMirror(d Dialect) (head, tail string) {
	head = "INSERT INTO followers (to_id, from_id, state, version, edge_id, reblogs, notify, updated_at) VALUES "
	tail = " ON CONFLICT (to_id, from_id) DO UPDATE SET state = excluded.state, version = excluded.version, " +
		"edge_id = excluded.edge_id, reblogs = excluded.reblogs, notify = excluded.notify, updated_at = excluded.updated_at " +
		"WHERE excluded.version >= followers.version"
	if d.Name == "mysql" {
		var sets []string
		// version last: MySQL assigns left to right, so the guards see the old version
		for _, c := range []string{"state", "edge_id", "reblogs", "notify", "updated_at", "version"} {
			sets = append(sets, c+" = IF(VALUES(version) >= version, VALUES("+c+"), "+c+")")
		}
		tail = " ON DUPLICATE KEY UPDATE " + strings.Join(sets, ", ")
	}
	return head, tail
}

// FollowersMirrorColumns is the number of values per row of FollowersMirror.
const FollowersMirrorColumns = 8

// AppendFollowersValues appends the values of r as a followers row of
// FollowersMirror: to_id, from_id, then the other columns as stored.
func (r RelationRow) AppendFollowersValues(args []any) []any {
	return append(args, int64(r.To), int64(r.From), r.State, r.Version, r.EdgeID, r.Reblogs, r.Notify, r.UpdatedAt)
}

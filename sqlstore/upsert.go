package sqlstore

import "strings"

// upsertSQL returns a multi-row insert of n rows into table that, on a key
// conflict, overwrites the update columns with the new row's values.
func upsertSQL(d Dialect, table string, cols, key, update []string, n int) string {
	row := "(" + Placeholders(len(cols)) + ")"
	q := "INSERT INTO " + table + " (" + strings.Join(cols, ", ") + ") VALUES " +
		strings.TrimSuffix(strings.Repeat(row+",", n), ",")
	sets := make([]string, len(update))
	for i, c := range update {
		if d.Name == "mysql" {
			sets[i] = c + " = VALUES(" + c + ")"
		} else {
			sets[i] = c + " = excluded." + c
		}
	}
	if d.Name == "mysql" {
		return q + " ON DUPLICATE KEY UPDATE " + strings.Join(sets, ", ")
	}
	return q + " ON CONFLICT (" + strings.Join(key, ", ") + ") DO UPDATE SET " + strings.Join(sets, ", ")
}

// forUpdate is the locking suffix of a read inside a write transaction
// (SQLite's single writer needs none).
func forUpdate(d Dialect) string {
	if d.Name == "mysql" {
		return " FOR UPDATE"
	}
	return ""
}

package duckdbbridge

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rigel-db/rigel/internal/ipcfiles"
)

// RestrictFiles lets plans and SQL read only the regular files inside the
// folders roots (none at all when roots is empty), each read taking at
// most maxFileBytes from its files (<= 0: ipcfiles.DefaultMaxBytes). It
// is for a server, whose clients must not read the rest of its disk; an
// engine reads any file by default, as DuckDB does, which is what the
// command line, the C ABI and the database/sql driver want for their
// user's own files.
//
// Both readers get the same folders: rigel's Arrow IPC reader (on the
// device and when DuckDB runs the whole plan), and DuckDB's readers
// (read_parquet, read_csv, ... of plans and SQL alike) through its
// allowed_directories, after which DuckDB's external access is turned
// off, for good: DuckDB cannot turn it back on, nor change its folders,
// while the database is open. So call it once, before the engine answers
// queries and before anything else turns DuckDB's external access off.
// Every root must be an existing folder; they are made absolute, and
// symbolic links in them resolved, before DuckDB gets them.
func (e *Engine) RestrictFiles(roots []string, maxFileBytes int64) error {
	files, err := ipcfiles.Folders(maxFileBytes, roots...)
	if err != nil {
		return fmt.Errorf("restricting file access: %w", err)
	}
	if err := e.restrictDuckDBFiles(files.Dirs()); err != nil {
		return err
	}
	e.files = files
	if e.exec != nil {
		e.exec.Files = files
	}
	return nil
}

// restrictDuckDBFiles sets DuckDB's allowed_directories to dirs and turns
// its external access off. DuckDB refuses to change allowed_directories
// once external access is off, so they are set first; when it is off
// already (RestrictFiles called twice), the folders it has must be dirs
// (and its temp_directory, which DuckDB adds to them itself).
func (e *Engine) restrictDuckDBFiles(dirs []string) error {
	var open bool
	if err := e.db.QueryRow("SELECT current_setting('enable_external_access')").Scan(&open); err != nil {
		return fmt.Errorf("restricting file access: reading DuckDB's enable_external_access: %w", err)
	}
	if !open {
		have, err := e.duckDBAllowedDirs()
		if err != nil {
			return err
		}
		want := dirs
		if temp := e.DuckDBSetting(context.Background(), "temp_directory"); temp != "" && temp != "?" {
			abs, err := filepath.Abs(temp)
			if err != nil {
				return fmt.Errorf("restricting file access: DuckDB's temp_directory: %w", err)
			}
			want = append(slices.Clip(dirs), abs)
		}
		if !slices.Equal(have, sortedDirs(want)) {
			return fmt.Errorf("restricting file access: DuckDB's external access is off already, with allowed folders %v, and DuckDB cannot change them now (restrict files before anything turns DuckDB's external access off)", have)
		}
		return nil
	}
	quoted := make([]string, len(dirs))
	for i, d := range dirs {
		quoted[i] = "'" + strings.ReplaceAll(d, "'", "''") + "'"
	}
	if _, err := e.db.Exec("SET allowed_directories = [" + strings.Join(quoted, ", ") + "]"); err != nil {
		return fmt.Errorf("restricting file access: setting DuckDB's allowed_directories: %w", err)
	}
	if _, err := e.db.Exec("SET enable_external_access = false"); err != nil {
		return fmt.Errorf("restricting file access: turning DuckDB's external access off: %w", err)
	}
	return nil
}

// duckDBAllowedDirs reads DuckDB's allowed_directories, sorted, without
// the trailing slash DuckDB adds.
func (e *Engine) duckDBAllowedDirs() ([]string, error) {
	rows, err := e.db.Query("SELECT unnest(current_setting('allowed_directories'))")
	if err != nil {
		return nil, fmt.Errorf("restricting file access: reading DuckDB's allowed_directories: %w", err)
	}
	defer rows.Close()
	var dirs []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, fmt.Errorf("restricting file access: reading DuckDB's allowed_directories: %w", err)
		}
		dirs = append(dirs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("restricting file access: reading DuckDB's allowed_directories: %w", err)
	}
	return sortedDirs(dirs), nil
}

// sortedDirs is dirs sorted, each without a trailing slash (but "/").
func sortedDirs(dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		if t := strings.TrimRight(d, "/"); t != "" {
			d = t
		} else {
			d = "/"
		}
		out[i] = d
	}
	slices.Sort(out)
	return slices.Compact(out)
}

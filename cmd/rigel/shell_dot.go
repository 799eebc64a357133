package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

const shellHelp = `.device                  Show where queries run (GPU, host or DuckDB) and why
.exit                    Leave the shell (also .quit, Ctrl-D)
.help                    Show this message
.mode MODE               Set the output mode: duckbox (default), box, csv, line,
                         markdown, json, list; without MODE, show the current one
.quit                    Leave the shell
.schema [TABLE]          Show the CREATE statements of all tables, or of TABLE
.tables                  List the tables and views of the database
.timer on|off            Show the run time and where each statement ran

SQL statements end with ';'. EXPLAIN <query> shows rigel's plan: where each
operator runs (GPU, host, or FALLBACK to DuckDB) and why. Ctrl-C cancels the
running statement.
`

// dotCommand runs one of the shell's own commands (a line starting '.').
func (s *shell) dotCommand(ctx context.Context, line string) {
	f := strings.Fields(strings.TrimSpace(line))
	cmd, args := f[0], f[1:]
	bad := func(format string, a ...any) {
		s.failed = true
		fmt.Fprintf(s.errw, "Error: "+format+"\n", a...)
	}
	switch cmd {
	case ".help":
		fmt.Fprint(s.out, shellHelp)
	case ".quit", ".exit":
		s.quit = true
	case ".timer":
		if len(args) != 1 || (args[0] != "on" && args[0] != "off") {
			bad(".timer takes on or off")
			return
		}
		s.timer = args[0] == "on"
	case ".mode":
		switch {
		case len(args) == 0:
			fmt.Fprintf(s.out, "current output mode: %s\n", s.mode)
		case len(args) == 1 && slices.Contains(shellModes, args[0]):
			s.mode = args[0]
		default:
			bad("mode should be one of: %s", strings.Join(shellModes, " "))
		}
	case ".device":
		fmt.Fprintln(s.out, s.deviceLine())
	case ".tables":
		if len(args) > 0 {
			bad(".tables takes no arguments")
			return
		}
		s.tables(ctx)
	case ".schema":
		if len(args) > 1 {
			bad(".schema takes at most one table name")
			return
		}
		s.schema(ctx, args)
	default:
		bad("unknown command or invalid arguments: %q. Enter \".help\" for help", strings.TrimPrefix(cmd, "."))
	}
}

// userObjects lists the database's tables and views with their CREATE
// statements (DuckDB's catalog functions, temporary objects included).
const userObjects = `SELECT name, sql FROM (
	SELECT table_name AS name, sql FROM duckdb_tables() WHERE NOT internal
	UNION ALL
	SELECT view_name, sql FROM duckdb_views() WHERE NOT internal
) ORDER BY name`

// tables prints the table names in columns, as DuckDB's .tables does.
func (s *shell) tables(ctx context.Context) {
	rows, err := s.eng.DB().QueryContext(ctx, userObjects)
	if err != nil {
		s.fail(err)
		return
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name, sql string
		if err := rows.Scan(&name, &sql); err != nil {
			s.fail(err)
			return
		}
		names = append(names, name)
	}
	if err := rows.Err(); err != nil {
		s.fail(err)
		return
	}
	wd := 0
	for _, n := range names {
		wd = max(wd, width(n))
	}
	perLine := max(80/(wd+2), 1)
	for i, n := range names {
		last := (i+1)%perLine == 0 || i == len(names)-1
		if last {
			fmt.Fprintln(s.out, n)
		} else {
			fmt.Fprint(s.out, pad(n, wd+2, false))
		}
	}
}

// schema prints CREATE statements, of one table (matched without regard to
// case, as DuckDB's names are) or all.
func (s *shell) schema(ctx context.Context, args []string) {
	rows, err := s.eng.DB().QueryContext(ctx, userObjects)
	if err != nil {
		s.fail(err)
		return
	}
	defer rows.Close()
	found := false
	for rows.Next() {
		var name, sql string
		if err := rows.Scan(&name, &sql); err != nil {
			s.fail(err)
			return
		}
		if len(args) == 1 && !strings.EqualFold(name, args[0]) {
			continue
		}
		found = true
		sql = strings.TrimSpace(sql)
		if !strings.HasSuffix(sql, ";") {
			sql += ";"
		}
		fmt.Fprintln(s.out, sql)
	}
	if err := rows.Err(); err != nil {
		s.fail(err)
		return
	}
	if !found && len(args) == 1 {
		s.failed = true
		fmt.Fprintf(s.errw, "Error: no table or view named %q\n", args[0])
	}
}

package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chzyer/readline"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
)

const (
	shellPrompt     = "D "
	shellContPrompt = "‣ " // DuckDB's continuation prompt
)

// shell is the state of one `rigel shell` session.
type shell struct {
	eng         *duckdbbridge.Engine
	dbPath      string
	out, errw   io.Writer
	mode        string
	timer       bool
	interactive bool
	failed      bool // a statement failed (the exit status of a script)
	quit        bool

	mu     sync.Mutex
	cancel context.CancelFunc // of the running statement, nil at the prompt
}

func cmdShell(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("shell", flag.ContinueOnError)
	ef := engineFlags{inMemory: true}
	ef.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("shell takes no arguments (got %q); pipe SQL into it or type it", strings.Join(pos, " "))}
	}
	eng, closeAll, err := openEngine(&ef)
	if err != nil {
		return err
	}
	defer closeAll()
	s := &shell{eng: eng, dbPath: ef.db, out: os.Stdout, errw: os.Stderr, mode: shellModes[0],
		interactive: readline.IsTerminal(int(os.Stdin.Fd()))}

	// Ctrl-C cancels the running statement, not the shell: main's context
	// stops listening for it, and the shell's own handler takes it.
	signal.Reset(os.Interrupt)
	intr := make(chan os.Signal, 1)
	signal.Notify(intr, os.Interrupt)
	defer signal.Stop(intr)
	go func() {
		for range intr {
			if !s.interrupt() && !s.interactive {
				os.Exit(130) // a script stopped between statements
			}
		}
	}()

	if ef.file != "" {
		f, err := os.Open(ef.file)
		if err != nil {
			return fmt.Errorf("read SQL: %w", err)
		}
		defer f.Close()
		s.interactive = false
		err = s.runScript(ctx, f)
		return s.exitError(err)
	}
	if !s.interactive {
		return s.exitError(s.runScript(ctx, os.Stdin))
	}
	return s.runInteractive(ctx)
}

// exitError turns a script's failed statements into a failing exit status
// (each error was already shown).
func (s *shell) exitError(err error) error {
	if err == nil && s.failed {
		return errors.New("shell: some statements failed (see above)")
	}
	return err
}

// interrupt cancels the running statement; false when none runs.
func (s *shell) interrupt() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel == nil {
		return false
	}
	s.cancel()
	return true
}

// historyPath is where the line history is kept: $RIGEL_HISTORY, else
// ~/.rigel_history ("" when there is no home: no history file).
func historyPath() string {
	if p := os.Getenv("RIGEL_HISTORY"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".rigel_history")
}

func (s *shell) runInteractive(ctx context.Context) error {
	hist := historyPath()
	if hist != "" {
		// The history holds the SQL typed, which may be private: made
		// readable by its owner alone (readline would create it 0666).
		if f, err := os.OpenFile(hist, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			f.Close()
		}
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 shellPrompt,
		HistoryFile:            hist,
		HistoryLimit:           2000,
		DisableAutoSaveHistory: true, // a whole statement is one entry, saved when complete
		InterruptPrompt:        "^C",
		EOFPrompt:              "",
	})
	if err != nil {
		return fmt.Errorf("shell: line editing: %w", err)
	}
	defer rl.Close()
	// SIGTERM (main's context) ends the shell even while it waits for a
	// line: closing the line editor makes Readline return.
	go func() {
		<-ctx.Done()
		rl.Close()
	}()
	where := s.dbPath
	if where == "" {
		where = "an in-memory database (read files with SELECT ... FROM 'x.parquet')"
	}
	fmt.Fprintf(s.out, "rigel shell on %s, %s\nEnter \".help\" for usage hints.\n", where, s.deviceLine())
	var buf stmtBuffer
	var lines []string // the lines of the statement being typed, for the history
	for !s.quit {
		if err := ctx.Err(); err != nil {
			return err
		}
		if buf.empty() {
			rl.SetPrompt(shellPrompt)
			lines = lines[:0]
		} else {
			rl.SetPrompt(shellContPrompt)
		}
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			buf.reset() // Ctrl-C at the prompt drops what was typed
			continue
		}
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(s.out)
			return ctx.Err() // nil for Ctrl-D; SIGTERM fails like every command's
		}
		if err != nil {
			return err
		}
		if buf.empty() && isDotCommand(line) {
			rl.SaveHistory(strings.TrimSpace(line))
			s.dotCommand(ctx, line)
			continue
		}
		lines = append(lines, line)
		stmts := buf.add(line)
		if len(stmts) > 0 {
			rl.SaveHistory(strings.Join(lines, " "))
			lines = lines[:0]
			if !buf.empty() {
				lines = append(lines, strings.TrimSpace(buf.text)) // the next statement's start
			}
		}
		for _, st := range stmts {
			s.runStatement(ctx, st)
		}
	}
	return nil
}

// runScript reads statements and dot commands from a file or a pipe: no
// prompts, no line editing.
func (s *shell) runScript(ctx context.Context, in io.Reader) error {
	r := bufio.NewReader(in)
	var buf stmtBuffer
	for !s.quit {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := r.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		eof := err != nil
		line = strings.TrimRight(line, "\r\n")
		if buf.empty() && isDotCommand(line) {
			s.dotCommand(ctx, line)
		} else if line != "" || !eof {
			for _, st := range buf.add(line) {
				s.runStatement(ctx, st)
				if s.quit {
					break
				}
			}
		}
		if eof {
			// A last statement without its semicolon still runs.
			if rest := buf.take(); rest != "" && !s.quit {
				s.runStatement(ctx, rest)
			}
			return nil
		}
	}
	return nil
}

func isDotCommand(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), ".")
}

// begin gives a statement its own context, which Ctrl-C cancels.
func (s *shell) begin(ctx context.Context) (context.Context, func()) {
	qctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	return qctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel()
	}
}

// fail shows a statement's error, DuckDB's message as DuckDB wrote it, and
// the shell goes on.
func (s *shell) fail(err error) {
	s.failed = true
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(s.errw, "Interrupted")
		return
	}
	msg := err.Error()
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	fmt.Fprint(s.errw, msg)
}

// runStatement runs one SQL statement: plain EXPLAIN shows rigel's plan,
// EXPLAIN ANALYZE of a query runs it and shows what each operator did,
// queries run on the engine, anything else goes to DuckDB.
func (s *shell) runStatement(ctx context.Context, stmt string) {
	qctx, done := s.begin(ctx)
	defer done()
	start := time.Now()
	if query, plain, ok := explainTarget(stmt); ok && plain {
		text, err := s.eng.Explain(qctx, query)
		if err != nil {
			s.fail(err)
			return
		}
		fmt.Fprint(s.out, text)
		s.showTime(time.Since(start), "rigel's plan: where each operator runs")
		return
	} else if ok {
		// EXPLAIN ANALYZE of a query rigel runs: what each operator did
		// there. Of anything else (a write): DuckDB's profile.
		if query, ok := analyzeTarget(stmt); ok && s.eng.CheckQuery(qctx, query) == nil {
			text, err := s.eng.ExplainAnalyze(qctx, query)
			if err != nil {
				s.fail(err)
				return
			}
			fmt.Fprint(s.out, text)
			s.showTime(time.Since(start), "rigel's plan, run: what each operator did")
			return
		}
		s.runOnDuckDB(qctx, stmt, start)
		return
	}
	if kw := leadingKeywords(stmt, 1); len(kw) == 1 && duckdbOnly[kw[0]] {
		s.runOnDuckDB(qctx, stmt, start)
		return
	}
	if err := s.eng.CheckQuery(qctx, stmt); err != nil {
		// Not a query (SET, SHOW, a write), or a statement DuckDB cannot
		// prepare (PRAGMA) or a wrong one: DuckDB runs it as it is, and a
		// wrong one gets DuckDB's own error.
		s.runOnDuckDB(qctx, stmt, start)
		return
	}
	res, err := s.eng.Query(qctx, stmt)
	if err != nil {
		s.fail(err)
		return
	}
	defer res.Release()
	elapsed := time.Since(start)
	if err := renderResult(s.out, arrowTable(res.Record), s.mode, s.termWidth()); err != nil {
		s.fail(err)
		return
	}
	s.showTime(elapsed, whereText(res.Where, res.Reason))
}

// duckdbOnly are DuckDB's utility statements: DuckDB turns some of them
// into SELECTs (PRAGMA table_info, SHOW) that rigel cannot plan, and they
// read only the catalog, so DuckDB answers them.
var duckdbOnly = map[string]bool{"PRAGMA": true, "CALL": true, "SHOW": true, "DESCRIBE": true, "DESC": true, "SUMMARIZE": true}

// runOnDuckDB hands a statement that is not a query rigel runs (SET,
// PRAGMA, SHOW, EXPLAIN ANALYZE of a write, writes) to DuckDB, and shows what it
// returns.
func (s *shell) runOnDuckDB(ctx context.Context, stmt string, start time.Time) {
	rows, err := s.eng.DB().QueryContext(ctx, stmt)
	if kw := leadingKeywords(stmt, 1); len(kw) == 1 && !duckdbOnly[kw[0]] && kw[0] != "SET" && kw[0] != "RESET" {
		// It may have changed tables or the catalog (a write, CREATE TEMP
		// TABLE, ATTACH), even on a read-only file: the engine forgets
		// its plans, catalog lookups and device columns.
		defer s.eng.TablesChanged()
	}
	if err != nil {
		s.fail(err)
		return
	}
	defer rows.Close()
	t, err := sqlTable(rows)
	if err != nil {
		s.fail(err)
		return
	}
	elapsed := time.Since(start)
	switch {
	case len(t.names) == 0 || (t.nrows == 0 && len(t.names) == 1 && strings.EqualFold(t.names[0], "success")):
		// DuckDB answers SET and the like with an empty "Success" column.
	case len(t.names) == 2 && t.names[0] == "explain_key" && t.names[1] == "explain_value":
		// DuckDB's own plan text reads best as it is, as its CLI shows it.
		for r := range t.nrows {
			fmt.Fprintln(s.out, strings.TrimRight(t.text(r, 1), "\n"))
		}
	default:
		if err := renderResult(s.out, t, s.mode, s.termWidth()); err != nil {
			s.fail(err)
			return
		}
	}
	s.showTime(elapsed, "DuckDB: not a query rigel runs")
}

// whereText says where a query ran and, for a fallback, why.
func whereText(w duckdbbridge.Where, reason string) string {
	switch w {
	case duckdbbridge.OnGPU:
		return "ran on the GPU"
	case duckdbbridge.OnHost:
		return "ran on host (rigel's reference engine)"
	}
	if reason == "" {
		return "DuckDB fallback"
	}
	return "DuckDB fallback: " + oneLine(reason)
}

// showTime prints the .timer line: DuckDB's "Run Time (s): real X" and
// where the statement ran.
func (s *shell) showTime(d time.Duration, where string) {
	if !s.timer {
		return
	}
	fmt.Fprintf(s.out, "Run Time (s): real %.3f (%s)\n", d.Seconds(), where)
}

// deviceLine describes the engine's device.
func (s *shell) deviceLine() string {
	dev := s.eng.Device()
	if dev == nil {
		return "no device: DuckDB runs every query (" + oneLine(s.eng.NoDeviceReason) + ")"
	}
	info := dev.Info()
	if info.Name == "host" {
		return "device host: rigel's reference engine on the CPU"
	}
	line := "device cuda: " + info.Model
	if info.Arch != "" {
		line += ", " + info.Arch
	}
	if info.TotalMemory > 0 {
		line += fmt.Sprintf(", %.1f GiB", float64(info.TotalMemory)/(1<<30))
	}
	return line
}

// termWidth is the terminal's width when results go to one (duckbox fits
// its tables into it), else 0: a file or a pipe gets whole tables.
func (s *shell) termWidth() int {
	f, ok := s.out.(*os.File)
	if !ok || !readline.IsTerminal(int(f.Fd())) {
		return 0
	}
	w, _, err := readline.GetSize(int(f.Fd()))
	if err != nil || w <= 0 {
		return 0
	}
	return w
}

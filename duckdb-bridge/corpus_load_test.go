package duckdbbridge

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// corpusDir holds the producer's query corpus (see its README.md).
const corpusDir = "../conformance/corpus"

// corpusQuery is one query of the corpus.
type corpusQuery struct {
	area string // the file it comes from, without .sql ("joins"), or "tpch"
	name string // unique over the corpus
	sql  string
}

// loadCorpus reads every queries/*.sql file: each query starts with a
// "-- name: NAME" line and runs to the next one; other comment lines are
// dropped and a trailing semicolon is removed.
func loadCorpus() ([]corpusQuery, error) {
	files, err := filepath.Glob(filepath.Join(corpusDir, "queries", "*.sql"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no query files in %s/queries", corpusDir)
	}
	sort.Strings(files)
	seen := map[string]string{}
	var out []corpusQuery
	for _, f := range files {
		area := strings.TrimSuffix(filepath.Base(f), ".sql")
		qs, err := parseQueryFile(f, area)
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			if prev, dup := seen[q.name]; dup {
				return nil, fmt.Errorf("%s: query name %q is also used in %s", f, q.name, prev)
			}
			seen[q.name] = f
		}
		out = append(out, qs...)
	}
	return out, nil
}

func parseQueryFile(path, area string) ([]corpusQuery, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []corpusQuery
	var cur *corpusQuery
	var body []string
	finish := func(line int) error {
		if cur == nil {
			return nil
		}
		cur.sql = strings.TrimSuffix(strings.TrimSpace(strings.Join(body, "\n")), ";")
		if cur.sql == "" {
			return fmt.Errorf("%s:%d: query %q has no text", path, line, cur.name)
		}
		if strings.Contains(cur.sql, ";") {
			return fmt.Errorf("%s:%d: query %q holds more than one statement (a missing -- name: line?)", path, line, cur.name)
		}
		out = append(out, *cur)
		return nil
	}
	for i, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if name, ok := strings.CutPrefix(trimmed, "-- name:"); ok {
			if err := finish(i + 1); err != nil {
				return nil, err
			}
			name = strings.TrimSpace(name)
			if !validName.MatchString(name) {
				return nil, fmt.Errorf("%s:%d: query name %q: use letters, digits and _", path, i+1, name)
			}
			cur, body = &corpusQuery{area: area, name: name}, nil
			continue
		}
		if strings.HasPrefix(trimmed, "--") || trimmed == "" {
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("%s:%d: SQL before the first -- name: line", path, i+1)
		}
		body = append(body, line)
	}
	if err := finish(0); err != nil {
		return nil, err
	}
	return out, nil
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// loadRefusals reads refusals.txt: "NAME<space>REASON" lines naming the
// queries the producer is expected to refuse, with the reason it gives (a
// substring of its error message).
func loadRefusals() (map[string]string, error) {
	return loadKeyedLines(filepath.Join(corpusDir, "refusals.txt"))
}

func loadKeyedLines(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, " ")
		if !ok || strings.TrimSpace(val) == "" {
			return nil, fmt.Errorf("%s:%d: want NAME REASON", path, n)
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", path, n, key)
		}
		out[key] = strings.TrimSpace(val)
	}
	return out, sc.Err()
}

// validatorWarning is one entry of validator-warnings.txt: a warning the
// validator gives on produced plans, and why it is not a defect of the plan.
type validatorWarning struct {
	code        int
	pattern     *regexp.Regexp // matched against the message
	explanation string
}

// loadValidatorWarnings reads validator-warnings.txt, blocks of
//
//	code: N
//	message: REGEXP
//	why: TEXT (one line)
//
// separated by blank lines.
func loadValidatorWarnings() ([]validatorWarning, error) {
	path := filepath.Join(corpusDir, "validator-warnings.txt")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []validatorWarning
	for i, block := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
		fields := map[string]string{}
		for _, line := range strings.Split(block, "\n") {
			if strings.HasPrefix(line, "#") {
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				return nil, fmt.Errorf("%s: block %d: line %q is not KEY: VALUE", path, i+1, line)
			}
			fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		if len(fields) == 0 {
			continue
		}
		code, err := strconv.Atoi(fields["code"])
		if err != nil {
			return nil, fmt.Errorf("%s: block %d: code: %v", path, i+1, err)
		}
		re, err := regexp.Compile(fields["message"])
		if err != nil || fields["message"] == "" {
			return nil, fmt.Errorf("%s: block %d: message must be a regular expression: %v", path, i+1, err)
		}
		if fields["why"] == "" {
			return nil, fmt.Errorf("%s: block %d: every warning needs its explanation (why:)", path, i+1)
		}
		out = append(out, validatorWarning{code: code, pattern: re, explanation: fields["why"]})
	}
	return out, nil
}

// explain returns the entry that explains a warning, or nil.
func explainWarning(ws []validatorWarning, f validatorFinding) *validatorWarning {
	for i := range ws {
		if ws[i].code == f.Code && ws[i].pattern.MatchString(f.Msg) {
			return &ws[i]
		}
	}
	return nil
}

package functions

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
)

// The baseline lists the cases that passed when it was last refreshed, one
// a line: the case ID, a tab, and the case text (for people reading diffs;
// only the ID counts). Lines starting with '#' are comments.

// ReadBaseline returns the case IDs of a baseline file.
func ReadBaseline(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, _, _ := strings.Cut(line, "\t")
		id = strings.TrimSpace(id)
		if !strings.Contains(id, ".test#") {
			return nil, fmt.Errorf("%s:%d: %q is not a case ID (file.test#NNN)", path, n, id)
		}
		if ids[id] {
			return nil, fmt.Errorf("%s:%d: case %s listed twice", path, n, id)
		}
		ids[id] = true
	}
	return ids, sc.Err()
}

// FormatBaseline renders the passing cases of results, sorted by ID.
func FormatBaseline(results []Result) []byte {
	var lines []string
	for _, r := range results {
		if r.Outcome == Pass {
			lines = append(lines, r.Case.ID+"\t"+strings.ReplaceAll(r.Case.Text, "\n", " "))
		}
	}
	sort.Strings(lines)
	var b bytes.Buffer
	b.WriteString("# Substrait function test cases that pass on rigel's host device.\n")
	b.WriteString("# Refresh: RIGEL_UPDATE_BASELINE=1 go test ./conformance/functions/\n")
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// WriteBaseline writes the passing cases of results to path.
func WriteBaseline(path string, results []Result) error {
	return writeFile(path, FormatBaseline(results))
}

func writeFile(path string, data []byte) error {
	return os.WriteFile(path, data, 0o644)
}

package duckdbbridge

import (
	"fmt"
	"sort"
	"strings"
)

// corpusCounts are the numbers of one area of the corpus.
type corpusCounts struct {
	queries, produced, validated, onDevice, partly, fellBack, known int
}

// splitMarker (engine.go splitReason's text) marks a query whose plan ran on the device except for some
// relations, which ran as DuckDB SQL (per-subtree fallback).
const splitMarker = "subtree(s) on DuckDB"

func (c *corpusCounts) add(r *corpusRecord) {
	c.queries++
	if r.produced {
		c.produced++
	}
	if r.validated {
		c.validated++
	}
	if r.matched && r.where != OnFallback {
		if strings.Contains(r.reason, splitMarker) {
			c.partly++
		} else {
			c.onDevice++
		}
	}
	if r.matched && r.where == OnFallback {
		c.fellBack++
	}
	if !r.matched && r.where == knownEngineFailure {
		c.known++
	}
}

type corpusSummary struct {
	areas []string
	by    map[string]*corpusCounts
	total corpusCounts
}

func summarize(recs []*corpusRecord) corpusSummary {
	s := corpusSummary{by: map[string]*corpusCounts{}}
	for _, r := range recs {
		c := s.by[r.q.area]
		if c == nil {
			c = &corpusCounts{}
			s.by[r.q.area] = c
			s.areas = append(s.areas, r.q.area)
		}
		c.add(r)
		s.total.add(r)
	}
	return s
}

// markdown renders RESULTS.md: counts per area and per operator, the
// fallback reasons, and one line per query. device names where the engine
// ran; validated says whether the validator ran.
func (s corpusSummary) markdown(recs []*corpusRecord, device string, validated bool) string {
	var b strings.Builder
	b.WriteString("# Producer corpus results\n\n")
	if device == "host" {
		b.WriteString("Written by `RIGEL_UPDATE_CORPUS=1 go test -run TestCorpus ./duckdb-bridge/`\n")
	} else {
		b.WriteString("Written by `RIGEL_CORPUS_DEVICE=" + device + " RIGEL_CORPUS_REPORT=FILE` and TestCorpus (scripts/gpu-run.sh corpus)\n")
	}
	b.WriteString("(" + device + " device). Produced: the producer made a Substrait plan. Validated: the official\n")
	b.WriteString("substrait-validator found no error in it")
	if !validated {
		b.WriteString(" (it did not run on this machine: see RESULTS.md for the host run)")
	}
	b.WriteString(". On device: rigel ran the whole plan and its answer\n")
	b.WriteString("equals DuckDB's. Partly: the device ran the plan except some relations, which ran as DuckDB SQL\n")
	b.WriteString("over the device's results (per-subtree fallback). Fell back: the engine handed the whole\n")
	b.WriteString("query to DuckDB (the producer refused it, or\n")
	b.WriteString("rigel's consumer cannot run the plan yet); its answer equals DuckDB's by construction. Known\n")
	b.WriteString("engine failure: listed in engine-failures.txt (a consumer bug outside the producer).\n\n")
	b.WriteString("| area | queries | produced | validated | on device | partly | fell back | known engine failure |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, c *corpusCounts) {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d |\n", name, c.queries, c.produced, c.validated, c.onDevice, c.partly, c.fellBack, c.known)
	}
	for _, a := range s.areas {
		row(a, s.by[a])
	}
	t := s.total
	row("**total**", &t)

	// Per operator: the produced queries whose plan has that relation kind.
	byOp := map[string]*corpusCounts{}
	for _, r := range recs {
		for _, op := range r.ops {
			if byOp[op] == nil {
				byOp[op] = &corpusCounts{}
			}
			byOp[op].add(r)
		}
	}
	ops := make([]string, 0, len(byOp))
	for op := range byOp {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	b.WriteString("\n## By operator\n\nThe produced queries whose plan holds the relation (a query counts once under each of its relations).\n\n")
	b.WriteString("| relation | queries | on device | partly | fell back | known engine failure |\n|---|---:|---:|---:|---:|---:|\n")
	for _, op := range ops {
		c := byOp[op]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d |\n", op, c.queries, c.onDevice, c.partly, c.fellBack, c.known)
	}

	reasons := map[string][]string{}
	for _, r := range recs {
		if r.matched && r.where != OnFallback && strings.Contains(r.reason, splitMarker) {
			reasons["partly: "+r.reason] = append(reasons["partly: "+r.reason], r.q.name)
		}
		if r.matched && r.where == OnFallback {
			key := r.reason
			if r.refusal != "" {
				key = "producer: " + r.refusal
			}
			reasons[key] = append(reasons[key], r.q.name)
		}
	}
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(reasons[keys[i]]) != len(reasons[keys[j]]) {
			return len(reasons[keys[i]]) > len(reasons[keys[j]])
		}
		return keys[i] < keys[j]
	})
	b.WriteString("\n## Why queries fell back\n\n| queries | reason | which |\n|---:|---|---|\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "| %d | %s | %s |\n", len(reasons[k]), mdCell(k), strings.Join(reasons[k], " "))
	}

	b.WriteString("\n## Every query\n\n| query | area | produced | validated | ran |\n|---|---|---|---|---|\n")
	yes := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	for _, r := range recs {
		ran := "FAILED"
		if r.matched || r.where == knownEngineFailure {
			ran = string(r.where)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.q.name, r.q.area, yes(r.produced), yes(r.validated), ran)
	}
	return b.String()
}

// mdCell makes text safe inside a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

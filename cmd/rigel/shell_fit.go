package main

// boxFit is a duckbox's columns: names, types, alignment, widths and the
// cells of the rows shown.
type boxFit struct {
	names, types []string
	right        []bool
	widths       []int
	cells        [][]string
}

// minTextWidth is how narrow fitBox makes a text column before it hides
// columns.
const minTextWidth = 12

func boxWidth(widths []int) int {
	total := 1
	for _, wd := range widths {
		total += wd + 3
	}
	return total
}

// fitBox fits a duckbox into maxWidth characters the way DuckDB's does:
// first it narrows the widest text columns (their values end in "…"), then
// it hides columns from the middle behind one "…" column. It returns the
// fitted columns and how many were hidden.
func fitBox(b boxFit, maxWidth int) (boxFit, int) {
	widths := append([]int(nil), b.widths...)
	for boxWidth(widths) > maxWidth {
		widest := -1
		for c, wd := range widths {
			if !b.right[c] && wd > minTextWidth && (widest < 0 || wd > widths[widest]) {
				widest = c
			}
		}
		if widest < 0 {
			break
		}
		widths[widest] = max(minTextWidth, widths[widest]-(boxWidth(widths)-maxWidth))
	}
	keep := make([]bool, len(widths))
	for c := range keep {
		keep[c] = true
	}
	hidden := 0
	fits := func() bool {
		total := 1
		for c, wd := range widths {
			if keep[c] {
				total += wd + 3
			}
		}
		if hidden > 0 {
			total += 1 + 3 // the "…" column
		}
		return total <= maxWidth
	}
	// Hide the columns nearest the middle, alternating sides, until the
	// box fits; the first and last columns stay.
	mid := len(widths) / 2
	for k := 0; !fits() && k < 2*len(widths); k++ {
		off := (k + 1) / 2 // the middle, then one left, one right, two left...
		if k%2 == 1 {
			off = -off
		}
		if c := mid + off; c > 0 && c < len(widths)-1 && keep[c] {
			keep[c] = false
			hidden++
		}
	}
	var out boxFit
	dots := false
	for c := range widths {
		if !keep[c] {
			if !dots {
				dots = true
				out.names = append(out.names, "…")
				out.types = append(out.types, "")
				out.right = append(out.right, false)
				out.widths = append(out.widths, 1)
			}
			continue
		}
		out.names = append(out.names, clip(b.names[c], widths[c]))
		out.types = append(out.types, clip(b.types[c], widths[c]))
		out.right = append(out.right, b.right[c])
		out.widths = append(out.widths, widths[c])
	}
	for _, row := range b.cells {
		var r []string
		dots := false
		for c, v := range row {
			if !keep[c] {
				if !dots {
					dots = true
					r = append(r, "…")
				}
				continue
			}
			r = append(r, clip(v, widths[c]))
		}
		out.cells = append(out.cells, r)
	}
	return out, hidden
}

// clip shortens s to w characters, its last one "…".
func clip(s string, w int) string {
	if width(s) <= w {
		return s
	}
	r := []rune(s)
	return string(r[:max(w-1, 0)]) + "…"
}

package mutation

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Argued is a surviving mutant argued equivalent: no behaviour of the
// program can differ, so no oracle can kill it. Or, with Explained, a
// survivor that is not equivalent, and the reason the killer cannot see
// it: it still counts as survived, but the report says why.
type Argued struct {
	ID        string // as Mutant.ID prints it
	Reason    string
	Line      int // in the file, for stale-entry reports
	Explained bool
}

// survivorsSection starts the part of an equivalents file whose entries
// are explained survivors, not equivalent ones.
const survivorsSection = "[survivors]"

// ParseEquivalents reads a list of argued-equivalent mutants: one per
// line, the mutant's ID, a colon and the reason,
//
//	queue.go (*System).grant conditionals-boundary "a < b" -> "a <= b" #0: a and b are never equal here because ...
//
// Blank lines and lines starting with # are ignored. The entries after a
// line "[survivors]" are explained survivors (not equivalent: the reason
// says why the killer cannot see them). An entry without a reason, or
// whose ID does not parse, is an error.
func ParseEquivalents(r io.Reader) ([]Argued, error) {
	var out []Argued
	explained := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if line == survivorsSection {
			explained = true
			continue
		}
		id, reason, err := splitEntry(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		out = append(out, Argued{ID: id, Reason: reason, Line: n, Explained: explained})
	}
	return out, sc.Err()
}

// splitEntry splits "file func op "orig" -> "mut" #k: reason".
func splitEntry(line string) (id, reason string, err error) {
	bad := fmt.Errorf("want: file function operator \"original\" -> \"mutated\" #N: reason")
	// The function may hold a space ("const messagesQuery" names a
	// package-level declaration): the operator is the word before the
	// first quoted snippet, the function everything between it and the file.
	q := strings.IndexAny(line, "\"`")
	if q < 1 || line[q-1] != ' ' {
		return "", "", bad
	}
	words := strings.Fields(line[:q])
	if len(words) < 3 {
		return "", "", bad
	}
	f := []string{words[0], strings.Join(words[1:len(words)-1], " "), words[len(words)-1], line[q:]}
	if _, err := ParseOperator(f[2]); err != nil {
		return "", "", err
	}
	rest := f[3]
	orig, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", "", bad
	}
	rest, ok := strings.CutPrefix(rest[len(orig):], " -> ")
	if !ok {
		return "", "", bad
	}
	mut, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", "", bad
	}
	rest, ok = strings.CutPrefix(rest[len(mut):], " #")
	if !ok {
		return "", "", bad
	}
	num, reason, ok := strings.Cut(rest, ":")
	if _, err := strconv.Atoi(num); err != nil || !ok || strings.TrimSpace(reason) == "" {
		return "", "", bad
	}
	// Requoting makes the ID match Mutant.ID whatever quoting style the
	// entry used.
	o, _ := strconv.Unquote(orig)
	m, _ := strconv.Unquote(mut)
	id = fmt.Sprintf("%s %s %s %s -> %s #%s", f[0], f[1], f[2], strconv.Quote(o), strconv.Quote(m), num)
	return id, strings.TrimSpace(reason), nil
}

// applyEquivalents marks the survivors argued equivalent (and gives the
// explained ones their reason), and lists the entries that match no
// mutant (stale) or a killed one (misjudged).
func applyEquivalents(r *Report, all []*Mutant, eqs []Argued) {
	byID := map[string]Argued{}
	for _, e := range eqs {
		byID[e.ID] = e
	}
	exists := map[string]bool{}
	for _, m := range all {
		exists[m.ID()] = true
	}
	for i := range r.Outcomes {
		o := &r.Outcomes[i]
		e, ok := byID[o.Mutant.ID()]
		switch {
		case !ok:
		case o.Status == Survived && e.Explained:
			o.Reason = e.Reason
		case o.Status == Survived:
			o.Status, o.Reason = Equivalent, e.Reason
		case o.Status == Killed || o.Status == Crashed || o.Status == TimedOut:
			r.Misjudged = append(r.Misjudged, e)
		}
	}
	for _, e := range eqs {
		if !exists[e.ID] {
			r.Stale = append(r.Stale, e)
		}
	}
}

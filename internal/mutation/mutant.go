package mutation

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Mutant is one small change to one file of a package: the bytes
// [start, end) of the file replaced by repl.
type Mutant struct {
	File     string // file name in the package's directory
	Func     string // the enclosing function declaration, as funcName prints it
	Op       Operator
	Original string // a short snippet of the code before ...
	Mutated  string // ... and after the change (whitespace collapsed)
	Index    int    // occurrence among the function's mutants with the same operator and snippets
	Line     int    // where the change is (the operator, literal or statement)
	Col      int
	start    int
	end      int
	repl     string
	probes   []linecol // positions whose coverage block decides whether the sweep reaches it
	// outside is a mutant of a package-level declaration (the SQL of a
	// constant): no statement holds it, so no coverage block decides
	// whether the killer reaches it, and it always runs.
	outside bool
	site    *site // the construct it changes, shared by the mutants of that construct
}

// siteKind is how a schema switches the mutants of a site.
type siteKind uint8

const (
	siteBool  siteKind = iota // a comparison or a logical expression
	siteArith                 // an arithmetic expression
	siteStmt                  // a statement: removed, or its token swapped
	siteLit                   // a boolean literal
	siteStr                   // a string literal of SQL
)

// site is one construct that mutants change, in its file's bytes.
type site struct {
	kind       siteKind
	start, end int
	x, y       [2]int // the operands of an arithmetic expression
	switchable bool   // a schema can hold its mutants (see schema.go)
}

type linecol struct{ line, col int }

// ID names the mutant without its line: file, function, operator, the
// snippets and the occurrence index. Lines added or removed elsewhere do
// not change it.
func (m *Mutant) ID() string {
	return fmt.Sprintf("%s %s %s %s -> %s #%d", m.File, m.Func, m.Op, strconv.Quote(m.Original), strconv.Quote(m.Mutated), m.Index)
}

// Where is file:line:col.
func (m *Mutant) Where() string { return fmt.Sprintf("%s:%d:%d", m.File, m.Line, m.Col) }

// Apply returns src with the mutant's change.
func (m *Mutant) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)-(m.end-m.start)+len(m.repl))
	out = append(out, src[:m.start]...)
	out = append(out, m.repl...)
	return append(out, src[m.end:]...)
}

// collapse turns every run of white space into one space, keeping a
// leading or trailing one (so snippets join with their operator as in the
// source).
func collapse(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// snippetSide is how many characters of an operand a snippet keeps.
const snippetSide = 32

// keepTail keeps the last n characters of s, marking a cut with "…".
func keepTail(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return "…" + string(r[len(r)-n:])
}

// keepHead keeps the first n characters of s, marking a cut with "…".
func keepHead(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// abbrev shortens a whole statement: its first characters and a hash of
// the rest, so two long statements that start alike still differ.
func abbrev(s string) string {
	const max = 2 * snippetSide
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%s…%08x", string([]rune(s)[:max]), h.Sum32())
}

// around builds the snippets of a change in the middle of a construct:
// the text before it (its end kept), the old or new text, and the text
// after it (its start kept).
func around(before, old, new, after string) (orig, mutated string) {
	b, a := keepTail(collapse(before), snippetSide), keepHead(collapse(after), snippetSide)
	return strings.TrimSpace(b + old + a), strings.TrimSpace(b + new + a)
}

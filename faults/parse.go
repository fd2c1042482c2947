package faults

import (
	"errors"
	"fmt"
	"strings"
)

// Parse reads a plan of the pipeline ([Pipeline]) from text; see
// [Vocabulary.Parse].
func Parse(text string) (Plan, error) { return Pipeline.Parse(text) }

// Parse reads a plan of the vocabulary's system from text. Faults are separated by newlines or ';';
// '#' starts a comment that runs to the end of the line; blank lines and
// extra spaces are ignored. An error is one line, "plan:LINE:COL: message",
// where LINE and COL (1-based, in bytes) locate the offending token in the
// physical line. A kind or boundary the system does not have is an
// error that lists the ones it has. Parse never panics.
func (v *Vocabulary) Parse(text string) (Plan, error) {
	var out []Fault
	for i, line := range strings.Split(text, "\n") {
		if c := strings.IndexByte(line, '#'); c >= 0 {
			line = line[:c]
		}
		fs, err := v.parseLine(line, i+1)
		if err != nil {
			return Plan{}, err
		}
		out = append(out, fs...)
	}
	return newPlan(out), nil
}

// parseLine parses the ';'-separated faults of one line (comment removed).
func (v *Vocabulary) parseLine(line string, n int) ([]Fault, error) {
	var out []Fault
	start := 0
	for start <= len(line) {
		end := strings.IndexByte(line[start:], ';')
		if end < 0 {
			end = len(line) - start
		}
		if toks := tokenize(line[start:start+end], start); len(toks) > 0 {
			f, err := v.parseFault(toks)
			if err != nil {
				return nil, err.at(n)
			}
			out = append(out, f)
		}
		start += end + 1
	}
	return out, nil
}

// token is one word of a line and its 1-based byte column.
type token struct {
	text string
	col  int
}

// tokenize splits s on blanks; offset is s's position in its line.
func tokenize(s string, offset int) []token {
	var toks []token
	for i := 0; i < len(s); {
		if isBlank(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isBlank(s[j]) {
			j++
		}
		toks = append(toks, token{text: s[i:j], col: offset + i + 1})
		i = j
	}
	return toks
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// posError is a parse error at a column; at adds the line.
type posError struct {
	col int
	msg string
}

func errorAt(col int, format string, args ...any) *posError {
	return &posError{col: col, msg: fmt.Sprintf(format, args...)}
}

func (e *posError) at(line int) error {
	return fmt.Errorf("plan:%d:%d: %s", line, e.col, e.msg)
}

// parseFault parses one fault from its tokens (at least one).
func (v *Vocabulary) parseFault(toks []token) (Fault, *posError) {
	k, err := v.LookupKind(toks[0].text)
	if err != nil {
		return Fault{}, errorAt(toks[0].col, "%v", err)
	}
	p := faultParser{v: v, f: Fault{Kind: k}}
	p.cols[fKind] = toks[0].col
	rest := toks[1:]
	if k.atBoundary() {
		if perr := p.boundary(toks); perr != nil {
			return Fault{}, perr
		}
		rest = rest[1:]
	}
	for _, t := range rest {
		if perr := p.keyValue(t); perr != nil {
			return Fault{}, perr
		}
	}
	return p.finish()
}

// faultParser accumulates one fault and where each of its fields was.
type faultParser struct {
	v    *Vocabulary
	f    Fault
	seen uint16
	cols [fieldCount]int
}

// finish checks required fields and ranges, pointing errors at the token.
func (p *faultParser) finish() (Fault, *posError) {
	uses := p.f.fields()
	for fd := fNth; fd < fieldCount; fd++ {
		if uses&fd.bit() != 0 && p.seen&fd.bit() == 0 && (fd != fWorker || !p.f.Kind.atBoundary()) {
			return Fault{}, errorAt(p.cols[fKind], "missing required field %s for %s", fd.name(p.f.Kind), p.f.describe())
		}
	}
	if err := p.v.Check(p.f); err != nil {
		col := p.cols[fKind]
		var fe *fieldError
		if errors.As(err, &fe) && p.cols[fe.field] > 0 {
			col = p.cols[fe.field]
		}
		return Fault{}, errorAt(col, "%v", err)
	}
	return p.f, nil
}

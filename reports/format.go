package reports

import (
	"strconv"
	"strings"

	"github.com/durasim/durasim/model"
)

// dur prints a model duration for people: "0 ms", "250 ms", "1.5 s",
// "15 min", with the language's decimal separator.
func (l Lang) dur(t model.Time) string {
	ms := t / model.Millisecond
	switch {
	case t < 0:
		return "-" + l.dur(-t)
	case ms < 1000:
		if t%model.Millisecond != 0 && ms < 10 {
			return l.decimal(float64(t)/float64(model.Millisecond), 1) + " ms"
		}
		return strconv.FormatInt(ms, 10) + " ms"
	case ms < 120_000:
		return l.decimal(float64(ms)/1000, 1) + " s"
	case ms%60_000 == 0:
		return strconv.FormatInt(ms/60_000, 10) + " min"
	}
	return l.decimal(float64(ms)/60_000, 1) + " min"
}

// decimal prints x with at most prec decimals (trailing zeros dropped) and
// the language's separator.
func (l Lang) decimal(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if l == PtBR {
		s = strings.ReplaceAll(s, ".", ",")
	}
	return s
}

// num prints an integer with the language's thousands separator.
func (l Lang) num(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	sep := ","
	if l == PtBR {
		sep = "."
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// percent prints part/whole as a percentage with no decimals.
func (l Lang) percent(part, whole int64) string {
	if whole == 0 {
		return "–"
	}
	return strconv.FormatInt((part*100+whole/2)/whole, 10) + "%"
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// code wraps s as inline code, choosing a fence the text does not hold;
// an empty s gives nothing (two backticks with nothing between them are
// no code span: a page would show them as they are).
func code(s string) string {
	switch {
	case s == "":
		return ""
	case strings.Contains(s, "`"):
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// plural picks the singular or the plural word of the language for n.
func (l Lang) plural(n int, ptOne, ptMany, enOne, enMany string) string {
	if n == 1 {
		return l.t(ptOne, enOne)
	}
	return l.t(ptMany, enMany)
}

// count prints n and its noun: "1 falha", "3 faults".
func (l Lang) count(n int, ptOne, ptMany, enOne, enMany string) string {
	return l.num(int64(n)) + " " + l.plural(n, ptOne, ptMany, enOne, enMany)
}

// list joins items as a sentence does: "a, b e c", "a, b and c".
func (l Lang) list(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + l.t(" e ", " and ") + items[len(items)-1]
}

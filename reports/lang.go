package reports

import (
	"fmt"
	"strings"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/scenarios"
	"github.com/durasim/durasim/timeline"
)

// Lang is a report language.
type Lang string

// The report languages.
const (
	PtBR Lang = "pt-BR"
	En   Lang = "en"
)

// Langs lists the report languages in order.
func Langs() []Lang { return []Lang{PtBR, En} }

// ParseLang maps "pt-BR" or "en" to its Lang.
func ParseLang(s string) (Lang, error) {
	for _, l := range Langs() {
		if strings.EqualFold(string(l), s) {
			return l, nil
		}
	}
	return "", fmt.Errorf("unknown language %q (want pt-BR or en)", s)
}

// pick returns t in the language.
func (l Lang) pick(t scenarios.Text) string {
	if l == PtBR {
		return t.PtBR
	}
	return t.En
}

// t returns the message in the language.
func (l Lang) t(pt, en string) string {
	if l == PtBR {
		return pt
	}
	return en
}

// violation is v's text in the language: the English v.String(), or its
// translation (package timeline's, which the pages' timelines show too).
// A message with no translation stays English; TestViolationsTranslated
// fails on it.
func (l Lang) violation(v invariants.Violation) string {
	text, _ := timeline.Lang(l).ViolationText(v)
	return text
}

// other is the other language (for the link at the top of a report).
func (l Lang) other() Lang {
	if l == PtBR {
		return En
	}
	return PtBR
}

// name is the language's name in itself.
func (l Lang) name() string {
	if l == PtBR {
		return "Português (Brasil)"
	}
	return "English"
}

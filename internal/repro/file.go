package repro

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FormatVersion is the version of the repro file format ("repro 1").
const FormatVersion = 1

// Header is what a repro file says besides the settings.
type Header struct {
	Kind    string   // what the settings configure ("sim"); a reader checks it
	Seed    uint64   // the seed to run
	Version string   // the version of the program that wrote it ("": unknown)
	Notes   []string // comment lines, written after "# "
}

// WriteFile writes a repro file of v: the header, then every setting but
// the Mode ones, in field order. It fails, writing nothing, when a
// setting has no text form.
func (s *Schema) WriteFile(w io.Writer, h Header, v any) error {
	var b strings.Builder
	for _, n := range h.Notes {
		for _, line := range strings.Split(n, "\n") {
			b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
		}
	}
	fmt.Fprintf(&b, "repro %d\nkind %s\nseed %d\n", FormatVersion, h.Kind, h.Seed)
	if h.Version != "" {
		fmt.Fprintf(&b, "version %s\n", quoteValue(h.Version))
	}
	rv := s.value(v)
	for _, f := range s.fields {
		if f.Mode != "" {
			continue
		}
		text, err := f.format(rv.FieldByIndex(f.index))
		if err != nil {
			return fmt.Errorf("%s: %v", f.Key, err)
		}
		b.WriteString(f.Key + " " + quoteValue(text) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ReadFile reads a repro file (name is for messages) into *ptr, which
// holds the base its settings apply to (the defaults: a file written
// before a setting existed leaves it at its default). It returns the
// header and the text of the external settings by key. Every problem
// is an error naming the file and line.
func (s *Schema) ReadFile(r io.Reader, name string, ptr any) (Header, map[string]string, error) {
	var h Header
	external := map[string]string{}
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	n, started := 0, false
	fail := func(format string, args ...any) (Header, map[string]string, error) {
		return h, nil, fmt.Errorf("%s:%d: %s", name, n, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			if started || !strings.HasPrefix(line, "#") {
				continue
			}
			h.Notes = append(h.Notes, strings.TrimSpace(strings.TrimPrefix(line, "#")))
			continue
		}
		key, raw, _ := strings.Cut(line, " ")
		text, err := unquoteValue(strings.TrimSpace(raw))
		if err != nil {
			return fail("%s: %v", key, err)
		}
		if !started {
			if key != "repro" || text != strconv.Itoa(FormatVersion) {
				return fail("not a repro file (want its first line to be \"repro %d\")", FormatVersion)
			}
			started = true
			continue
		}
		if seen[key] {
			return fail("%s given twice", key)
		}
		seen[key] = true
		switch key {
		case "kind":
			h.Kind = text
		case "seed":
			if h.Seed, err = strconv.ParseUint(text, 10, 64); err != nil {
				return fail("seed %q: want an unsigned 64-bit integer", text)
			}
		case "version":
			h.Version = text
		default:
			f := s.byKey[key]
			switch {
			case f == nil || f.Mode != "":
				return fail("unknown setting %s", key)
			case f.External():
				external[key] = text
			default:
				if err := s.set(ptr, f, text); err != nil {
					return fail("%s %q: %v", key, text, err)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return h, nil, fmt.Errorf("%s: %v", name, err)
	}
	switch {
	case !started:
		return h, nil, fmt.Errorf("%s: not a repro file (empty)", name)
	case !seen["kind"] || !seen["seed"]:
		return h, nil, fmt.Errorf("%s: no kind or seed line", name)
	}
	return h, external, nil
}

// quoteValue quotes a value that would not read back as itself: empty,
// with surrounding spaces, starting with a quote, or not printable.
func quoteValue(s string) string {
	if s == "" || s != strings.TrimSpace(s) || s[0] == '"' || !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

func unquoteValue(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	u, err := strconv.Unquote(s)
	if err != nil {
		return "", errors.New("a value that starts with a quote must be a Go string literal")
	}
	return u, nil
}

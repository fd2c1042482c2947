package repro

import "strings"

// Shell joins args into a command line a POSIX shell reads back as
// args: an argument with anything but letters, digits and _./:=,@%+-
// is single-quoted.
func Shell(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = ShellQuote(a)
	}
	return strings.Join(out, " ")
}

// ShellQuote is one argument as Shell writes it.
func ShellQuote(a string) string {
	if a != "" && strings.IndexFunc(a, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:=,@%+-", r))
	}) < 0 {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// ShellWords splits a line as a POSIX shell reads what Shell writes:
// words separated by spaces, single quotes quoting, a backslash outside
// them escaping the next character (how Shell writes a quote). Tests
// read printed reproduce lines back with it.
func ShellWords(line string) []string {
	var words []string
	var w strings.Builder
	quoted, started, escaped := false, false, false
	for _, r := range line {
		switch {
		case escaped:
			w.WriteRune(r)
			escaped, started = false, true
		case r == '\\' && !quoted:
			escaped = true
		case r == '\'':
			quoted, started = !quoted, true
		case r == ' ' && !quoted:
			if started {
				words = append(words, w.String())
			}
			w.Reset()
			started = false
		default:
			w.WriteRune(r)
			started = true
		}
	}
	if started {
		words = append(words, w.String())
	}
	return words
}

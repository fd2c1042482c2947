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

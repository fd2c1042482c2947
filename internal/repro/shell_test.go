package repro

import (
	"slices"
	"testing"
)

// What Shell writes, ShellWords reads back as the same arguments: plain
// words, spaces, quotes, an empty argument, shell metacharacters.
func TestShellWordsReadsShell(t *testing.T) {
	args := []string{"go", "run", "./cmd/durasim", "-plan", "crash after_lease nth=1 worker=w0; pause x", "", "it's", `a\b`, "-seed", "7"}
	line := Shell(args...)
	if got := ShellWords(line); !slices.Equal(got, args) {
		t.Fatalf("ShellWords(%s) = %q, want %q", line, got, args)
	}
	if got := ShellWords("  a  'b c'd  "); !slices.Equal(got, []string{"a", "b cd"}) {
		t.Fatalf("got %q", got)
	}
}

package sim_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

// readmeSection returns the README's section under heading (to the next
// "## " heading).
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README has no %q", heading)
	}
	s = s[i+1:]
	if j := strings.Index(s[len(heading):], "\n## "); j >= 0 {
		s = s[:len(heading)+j]
	}
	return s
}

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// The Go code the README shows for writing your own test is compiled and
// run: each block is example_test.go's code, verbatim.
func TestREADMEQuotesCompiledCode(t *testing.T) {
	section := readmeSection(t, "## Writing your own scenario test")
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlock.FindAllStringSubmatch(section, -1)
	if len(blocks) < 2 {
		t.Fatalf("want the configuration and the store examples, found %d Go blocks", len(blocks))
	}
	for _, b := range blocks {
		if !strings.Contains(string(src), b[1]) {
			t.Errorf("README block not in example_test.go:\n%s", b[1])
		}
	}
}

// The README names every boundary a fault plan can name.
func TestREADMEListsEveryBoundary(t *testing.T) {
	section := readmeSection(t, "## Fault plans")
	for _, b := range model.Boundaries() {
		if !strings.Contains(section, "`"+b.String()+"`") {
			t.Errorf("README's fault plans do not list the boundary %s", b)
		}
	}
}

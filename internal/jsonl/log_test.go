package jsonl

import (
	"os"
	"path/filepath"
	"testing"
)

type entry struct {
	Op string `json:"op"`
	N  int    `json:"n"`
}

// Entries appended to a file read back in order; a torn last line is
// skipped; the zero Log keeps entries in memory.
func TestAppendReadAndMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	var l Log[entry]
	if err := l.Open(path, "test"); err != nil {
		t.Fatal(err)
	}
	l.Append(entry{"a", 1})
	l.Append(entry{"b", 2})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	_, _ = f.WriteString(`{"op":"c","n"`)
	f.Close()
	got, err := Read[entry](path)
	if err != nil || len(got) != 2 || got[0] != (entry{"a", 1}) || got[1] != (entry{"b", 2}) {
		t.Fatalf("read %v, %v", got, err)
	}
	var m Log[entry]
	m.Append(entry{"x", 3})
	if es := m.Entries(); len(es) != 1 || es[0].Op != "x" || m.Close() != nil {
		t.Fatalf("in memory: %v", es)
	}
}

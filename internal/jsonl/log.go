package jsonl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Log appends entries of type E. The zero Log has no file and keeps its
// entries in memory (tests).
type Log[E any] struct {
	mu      sync.Mutex
	f       *os.File
	who     string // the command named in a write error
	entries []E
}

// Open opens (appending, creating) the file at path for a zero Log; who
// names the command in the message of a write error.
func (l *Log[E]) Open(path, who string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	l.f, l.who = f, who
	return nil
}

// Append writes e as one line. A write error ends the process (status 3,
// a failure for the orchestrator): a history with a hole would make the
// checks lie.
func (l *Log[E]) Append(e E) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		l.entries = append(l.entries, e)
		return
	}
	b, err := json.Marshal(e)
	if err == nil {
		_, err = l.f.Write(append(b, '\n'))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: history %s: %v\n", l.who, l.f.Name(), err)
		os.Exit(3)
	}
}

// Entries returns a copy of the in-memory entries.
func (l *Log[E]) Entries() []E {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]E(nil), l.entries...)
}

// Close closes the file, if there is one.
func (l *Log[E]) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// Read reads a history file. A line that does not parse (a torn last
// line: a write cut short by the kill) is skipped.
func Read[E any](path string) ([]E, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []E
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e E
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out, sc.Err()
}

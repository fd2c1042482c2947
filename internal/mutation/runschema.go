package mutation

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"
)

// buildSchema rewrites the files of the mutants to run into a schema,
// leaves out the files whose schema does not type-check, builds the killer
// with it, and checks that with no mutant on it passes and its first run prints what the
// unmutated killer printed (the summary and its trace hash): the schema
// must not change behaviour. A timeout is then taken from the slower of
// the two.
func (s *session) buildSchema(r *Report) error {
	var run []*Mutant
	for _, o := range r.Outcomes {
		if o.Status == Survived {
			run = append(run, o.Mutant)
		}
	}
	start := time.Now()
	sc := newSchema(s.pkg, run)
	s.dropUnchecked(sc)
	if len(sc.ids) == 0 {
		return nil
	}
	s.progress("building the schema: %d mutants in %d files", len(sc.ids), len(sc.files))
	files := map[string][]byte{sc.path: sc.helper}
	for i, src := range sc.files {
		files[s.pkg.Path(i)] = src
	}
	bin, err := s.buildOverlay(filepath.Join(s.o.Dir, "schema"), files)
	if err != nil {
		return fmt.Errorf("building the schema (-schemata=false builds every mutant alone): %v", err)
	}
	r.Schema = time.Since(start)
	// Every run must pass, and the first must print what the unmutated
	// killer's first printed (a deterministic sweep: its summary and trace
	// hash). Later runs split at ";" may be real-time ones (a chaos run),
	// whose output differs from run to run.
	v := s.execKiller(bin, nil, 0)
	if v.status != Survived || v.first != s.plain.first {
		return fmt.Errorf("the schema with no mutant on does not run as the unmutated killer (%s %s; -schemata=false builds every mutant alone):\n%s\nwant:\n%s",
			v.status, v.detail, v.first, s.plain.first)
	}
	r.SchemaRun = v.elapsed
	s.timeout = s.o.Timeout.For(max(s.plain.elapsed, v.elapsed))
	r.Timeout = s.timeout
	s.schema, s.bin = sc, bin
	return nil
}

// dropUnchecked type-checks the schema and drops the files it fails on.
func (s *session) dropUnchecked(sc *schema) {
	extra := map[string][]byte{sc.path: sc.helper}
	if s.checker.CheckFiles(sc.files, extra) == nil {
		return
	}
	for _, i := range slices.Sorted(maps.Keys(sc.files)) {
		if err := s.checker.CheckFiles(map[int][]byte{i: sc.files[i]}, extra); err != nil {
			s.progress("schema of %s does not type-check (%v): its mutants are built one by one", s.pkg.Names[i], err)
			sc.drop(s.pkg, i)
		}
	}
}

// id is the number that switches m on in the schema, if it is in it.
func (sc *schema) id(m *Mutant) (int32, bool) {
	if sc == nil {
		return 0, false
	}
	id, ok := sc.ids[m]
	return id, ok
}

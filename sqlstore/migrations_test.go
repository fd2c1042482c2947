package sqlstore

import (
	"io/fs"
	"regexp"
	"testing"
)

// Every embedded migration is named NNNN_name.sql and the versions run 1..n
// without a gap: migrations() refuses anything else, and the equivalents
// file of make mutation-sql leans on it (a name check that can never fail
// on these files cannot be told from one that is missing).
func TestMigrationsAreNumbered(t *testing.T) {
	named := regexp.MustCompile(`^[0-9]{4}_[a-z0-9_]+\.sql$`)
	for _, d := range []string{SQLite, Postgres} {
		ents, err := fs.ReadDir(migrationFS, "migrations/"+d)
		if err != nil || len(ents) == 0 {
			t.Fatalf("%s: no migrations (%v)", d, err)
		}
		for _, e := range ents {
			if !named.MatchString(e.Name()) {
				t.Errorf("%s: migration %s is not NNNN_name.sql", d, e.Name())
			}
		}
		ms, err := migrations(d)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if len(ms) != len(ents) {
			t.Errorf("%s: %d migrations read from %d files", d, len(ms), len(ents))
		}
		for i, m := range ms {
			if m.version != i+1 || m.sql == "" {
				t.Errorf("%s: migration %d is %s (version %d, %d bytes)", d, i, m.name, m.version, len(m.sql))
			}
		}
	}
}

package mutation

import (
	"fmt"
	"slices"
	"testing"
)

func TestSQLChanges(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string // "old->new", in order
	}{
		{`"UPDATE jobs SET state = 'x', n = n + 1 WHERE id = $1 AND NOT done"`, []string{
			" + -> - ", " = -> <> ", " AND -> OR ", "NOT ->", // the SET list's two = are assignments
		}},
		{`" AND ready_at <= $1 ORDER BY id"`, []string{" AND -> OR ", " <= -> < ", " <= -> > "}},
		{`"SELECT a FROM t WHERE b > $1 OR c <> 2"`, []string{" > -> >= ", " > -> <= ", " <> -> = "}},
		{`"CANNOT x < y"`, nil},                                  // not SQL
		{`"SELECT 1 WHERE CANNOT_x = 1"`, []string{" = -> <> "}}, // NOT inside a word is left
		{`"x = 1"`, nil},
	} {
		var got []string
		for _, ch := range sqlChanges(c.text) {
			if c.text[ch.off:ch.off+len(ch.old)] != ch.old {
				t.Errorf("%s: offset %d holds %q, not %q", c.text, ch.off, c.text[ch.off:ch.off+len(ch.old)], ch.old)
			}
			got = append(got, fmt.Sprintf("%s->%s", ch.old, ch.new))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("sqlChanges(%s) = %q, want %q", c.text, got, c.want)
		}
	}
}

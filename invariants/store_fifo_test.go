package invariants_test

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/invariants"
)

// The fixture's leases are in FIFO order (each job leased once the older
// ones finished; the one re-leased after finishing, j2, was redriven): it
// holds on an ordered queue. A lease of j1, finished and never redriven,
// after the younger jobs' leases is out of order in both feeds, and
// proves nothing on a queue that is not ordered.
func TestStoreFIFO(t *testing.T) {
	for name, feed := range feeds {
		feed.Ordered = true
		f := storeFixture()
		if vs := fifoViolations(f, feed); len(vs) != 0 {
			t.Errorf("%s feed: the fixture is out of order: %v", name, vs)
		}
		f.op(invariants.Op{Kind: invariants.OpLease, Proc: "w9", Job: 1, Fence: 99, Attempt: 2})
		vs := fifoViolations(f, feed)
		if want := "ordered queue: j1 leased by w9 after the younger j2 was leased by w0"; len(vs) != 1 || !strings.Contains(vs[0], want) {
			t.Errorf("%s feed: %q, want one violation with %q", name, vs, want)
		}
		feed.Ordered = false
		if vs := fifoViolations(f, feed); len(vs) != 0 {
			t.Errorf("%s feed, not ordered: %v", name, vs)
		}
	}
}

func fifoViolations(f *storeFx, feed invariants.Feed) []string {
	var out []string
	for _, v := range invariants.CheckStore(&f.st, f.opsFor(feed), feed) {
		if v.Invariant == invariants.StoreFIFO.String() {
			out = append(out, v.String())
		}
	}
	return out
}

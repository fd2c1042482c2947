package sim

import (
	"fmt"
	"math/bits"
)

// RoundTrip picks the seeds of a sweep whose traces are read back at its
// end ([Replicate]: each line printed, parsed back into its event, and the
// seed replayed from its printed command): the first few seeds, and then
// each seed whose trace shows a kind of line (an event kind, accepted or
// refused) that no seed picked before showed. The first seeds alone left
// lines out that only a rarer path writes (an accepted reprocess and the
// new job it names, say), so a printer or parser that lost a field there
// passed every sweep. Seeds are added in sweep order, so the pick does
// not depend on -parallel.
type RoundTrip struct {
	First int // the first seeds always picked
	Most  int // at most this many picked in all

	seeds  []uint64
	hashes []uint64
	events uint64
	kinds  [2]uint64 // the kinds of line the picked seeds show (see Result.LineKinds)
}

// SweepRoundTrip is the pick of the CLI's sweeps (`durasim run -seeds`)
// and of the mutation killer, which runs what they run: the first four
// seeds and at most sixteen in all.
func SweepRoundTrip() *RoundTrip { return NewRoundTrip(4, 16) }

// NewRoundTrip picks the first first seeds and at most most in all.
func NewRoundTrip(first, most int) *RoundTrip { return &RoundTrip{First: first, Most: most} }

// Add offers a seed's result, in sweep order.
func (t *RoundTrip) Add(res *Result) {
	fresh := res.LineKinds[0]&^t.kinds[0] | res.LineKinds[1]&^t.kinds[1]
	if len(t.seeds) >= t.Most || len(t.seeds) >= t.First && fresh == 0 {
		return
	}
	t.seeds = append(t.seeds, res.Seed)
	t.hashes = append(t.hashes, res.Hash)
	t.events += res.Events
	t.kinds[0] |= res.LineKinds[0]
	t.kinds[1] |= res.LineKinds[1]
}

// Seeds are the seeds picked, in sweep order.
func (t *RoundTrip) Seeds() []uint64 { return t.seeds }

// Kinds are the kinds of line the picked seeds show (as Result.LineKinds).
func (t *RoundTrip) Kinds() [2]uint64 { return t.kinds }

// Verify replicates every picked seed under cfg.
func (t *RoundTrip) Verify(cfg Config) error {
	for i, seed := range t.seeds {
		if err := Replicate(cfg, seed, t.hashes[i]); err != nil {
			return err
		}
	}
	return nil
}

// String says what was read back, for a sweep's summary.
func (t *RoundTrip) String() string {
	first := min(len(t.seeds), t.First)
	s := fmt.Sprintf("the first %s", Counted(first, "seed"))
	if more := len(t.seeds) - first; more > 0 {
		s += fmt.Sprintf(" and %s showing kinds of line the first did not", Counted(more, "later seed"))
	}
	kinds := bits.OnesCount64(t.kinds[0]) + bits.OnesCount64(t.kinds[1])
	return fmt.Sprintf("%s, with their traces kept (%d lines of %d kinds, each read back into its event; each seed's first line of a kind, cut short at every byte, never read as that event) and from their printed replay commands: same hashes",
		s, t.events, kinds)
}

// Counted is "1 seed", "2 seeds": n and the noun, plural unless n is 1.
func Counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

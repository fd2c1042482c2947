package scheduler

import (
	"math/bits"
	"math/rand/v2"
)

// StreamID names an independent random sub-stream of a run.
type StreamID uint64

// The sub-streams of a run. Each subsystem draws only from its own stream so
// that, for example, switching a fault kind on does not change the workload.
const (
	StreamWorkload StreamID = iota + 1
	StreamFaults
	StreamSchedule
	StreamLatency
	StreamOperator
	StreamOptions // the swarm's choice of configuration options
	streamCount
)

// Stream is a seeded pseudo-random stream. Its outputs depend only on the
// seed, never on the platform or the Go release (the bounded reductions are
// ours, not math/rand/v2's).
type Stream struct{ pcg rand.PCG }

// NewStream returns a stream seeded with seed.
func NewStream(seed uint64) *Stream {
	s := &Stream{}
	s.Reset(seed)
	return s
}

// Reset reseeds the stream in place.
func (s *Stream) Reset(seed uint64) { s.pcg.Seed(splitmix(seed), splitmix(seed^0x9e3779b97f4a7c15)) }

// Derive returns the sub-stream id of the root seed.
func Derive(root uint64, id StreamID) *Stream {
	return NewStream(derivedSeed(root, id))
}

// ResetDerived makes s the stream Derive(root, id) returns, in place.
func (s *Stream) ResetDerived(root uint64, id StreamID) { s.Reset(derivedSeed(root, id)) }

func derivedSeed(root uint64, id StreamID) uint64 {
	return splitmix(root) ^ splitmix(uint64(id)*0xbf58476d1ce4e5b9)
}

// Uint64 returns the next 64 random bits.
func (s *Stream) Uint64() uint64 { return s.pcg.Uint64() }

// Uint64N returns a uniform integer in [0, n). n must be > 0.
// It uses Lemire's multiply-and-reject reduction.
func (s *Stream) Uint64N(n uint64) uint64 {
	if n == 0 {
		panic("scheduler: Uint64N(0)")
	}
	hi, lo := bits.Mul64(s.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.Uint64(), n)
		}
	}
	return hi
}

// IntN returns a uniform int in [0, n). n must be > 0.
func (s *Stream) IntN(n int) int { return int(s.Uint64N(uint64(n))) }

// Int64N returns a uniform int64 in [0, n). n must be > 0.
func (s *Stream) Int64N(n int64) int64 { return int64(s.Uint64N(uint64(n))) }

// Between returns a uniform Time in [lo, hi]. hi must be >= lo.
func (s *Stream) Between(lo, hi Time) Time { return lo + Time(s.Uint64N(uint64(hi-lo)+1)) }

// PPM is a probability in parts per million: integers keep every platform
// on the same result.
type PPM uint32

// Million is certainty.
const Million PPM = 1_000_000

// Chance reports true with probability p.
func (s *Stream) Chance(p PPM) bool {
	if p == 0 {
		return false
	}
	if p >= Million {
		return true
	}
	return s.Uint64N(uint64(Million)) < uint64(p)
}

// splitmix is SplitMix64's finaliser, used to spread seeds.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

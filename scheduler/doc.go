// Package scheduler is the deterministic heart of durasim: virtual time, an
// event heap and seeded random streams.
//
// # Virtual time
//
// [Time] is an integer count of nanoseconds since the fixed [Epoch]. Only
// [Scheduler.Step] moves it, jumping straight to the next due event; nothing
// here reads the wall clock. [Clock] exposes the scheduler's time through the
// Now/Since/Until part of github.com/benbjohnson/clock's Clock, which is the
// seam the model reads time through.
//
// # Ordering
//
// Events are ordered by (time, tie, sequence). The tie is drawn from the
// scheduling stream when the event is pushed, so two events due at the same
// instant run in an order that depends on the seed: different seeds explore
// different interleavings, and one seed always explores the same one. The
// sequence number makes the order total.
//
// # Random streams
//
// One root seed yields independent [Stream]s, one per [StreamID] (workload,
// faults, scheduling, latency), so changing the fault mix never changes the
// workload. Streams are PCG-DXSM (math/rand/v2's [rand.PCG]) with our own
// bounded-integer reduction, and their first outputs are pinned by a test.
package scheduler

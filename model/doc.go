// Package model is the system under test: the durable job pipeline of the
// course documents (seed 000's queue.mjs, outbox.mjs, retry-policy.mjs and
// worker.mjs; seed 003's DLQ envelope, classifier, full jitter and circuit
// breaker; seed 004's job states, async request-reply and redrive).
//
// # Purity
//
// The model is a set of durable stores ([System]) and pure functions over
// them. It performs no I/O, starts no goroutines and reads time only through
// the [Clock] it is given (the scheduler's virtual clock in simulation,
// github.com/benbjohnson/clock in production code). Randomness comes from a
// [Rand] it is given. Every state change is reported to a [Recorder] as an
// [Event], which is what invariants check and traces print.
//
// # Durable versus volatile
//
// Everything in [System] is durable: it survives a worker, relay or consumer
// crash. Actors (workers, the relay, the consumer) live in package sim and
// lose their memory when they crash.
//
// # Designs and naive variants
//
// A [Design] is the set of seams where the course documents describe a
// mistake: how keys are built, whether commits dedupe, whether fences are
// checked, how retries are bounded, and the order of a worker's steps. The
// correct design is [Correct]; each naive variant ([VariantNames],
// [LookupDesign]) replaces one seam with the mistake written the way the
// seeds describe it.
package model

// Package timeline renders a run's history as an interactive HTML
// timeline: one self-contained file (no network, no CDN: script, style and
// data inline, and a Content-Security-Policy that forbids any fetch) that
// shows on lanes in virtual time what a trace says in lines.
//
// # What it draws
//
// One lane per actor incarnation (each worker incarnation, the relay and
// consumer incarnations, the API), one for every client, and the broker,
// the operator, the breaker and the simulator. Time runs left to right,
// with zoom and pan; an idle gap (no event for longer than 1/200 of the
// run, at least 100 ms) shrinks to a sliver labelled with its length (a
// checkbox turns that off). Each lease is a bar coloured by job from its
// lease to its ack, retry, dead-letter or expiry, labelled with job, fence
// and attempt, dotted past the moment its lease expired; commits,
// publishes, deliveries and applies are marks joined by thin lines
// (commit → publish → apply of one event). Faults are drawn
// where they took effect: a crash as a cross that ends its incarnation's
// lane, a pause as a hatched span, broker duplicates, delays and
// reorderings as marks on the broker's lane, 429 bursts (from the realized
// plan) as bands over the worker lanes, requested deadlines as dashed
// lines, the breaker's open and half-open states as spans. The header
// holds the seed, the swarm's options, the plan and the command that
// reproduces the run.
//
// A key under the legend says what a lease's label (j3 f2 a1: job, fence,
// attempt), an incarnation's suffix (w0.1) and a crash's ✕ mean; a
// lease's label goes in the first stretch of its bar no mark covers, and
// the axis's labels stay inside it, each on its row.
//
// The violation shown (the first one, or the first of [Run.Invariant])
// has its invariant's message on top — in the page's language: in
// Portuguese, the message's shape translated ([Lang.Message],
// messages.go), the English original a click away — and the events it
// names ringed and joined in red; a run marked [Run.Shrunk] says that its
// ids are the shrink's, not the original run's, and a page holding one
// says that each tab shows its own run's violation; "only the jobs involved" keeps the critical path
// sim.TimelineIndices selects (the same events the CLI's counterexample
// and the reports list). Hovering a mark shows its trace line, byte for
// byte; a search box keeps the events of a job (j3), event id (e7), kind,
// tenant, lane or key; ←/→ step through the selected job's events.
//
// # Target runs
//
// A target run ([Run.Target], a targetsim.Result kept with its trace) is
// one more source of the same data, drawn by the same script
// (target.go): a lane per actor (the client, each worker incarnation as
// targetsim.Result.Incarnations has it, the rescuer, the scheduler, the
// operator), a mark per op shaped by the call and the queue's answer
// (an effect written or deduplicated, a completion refused, a report
// left, a job read as stuck, a rescue, a timeout), an attempt's bar
// from its fetch to the report or crash that lets it go (labelled j3
// a1, dotted past the policy's RescueAfter), pauses as hatched spans,
// the links of one handler transaction and of a rescue, and each fault
// of the plan noted (a purple dot, its text in the tooltip) on the op it
// struck (targetsim.Result.Strikes). Each event's text is the op's whole
// trace line; the page shows it with the event's number after its time,
// the number the violations name; ops of one lane at one instant (a
// target's times are milliseconds) are drawn side by side. "Only the
// jobs involved" keeps the ops of the violation's jobs up to the last op
// it names.
//
// # Why a hand-written script
//
// The page's script (timeline.js, about 960 lines, embedded with
// go:embed) is written for this data and draws on a canvas with no
// library. A general timeline library (vis-timeline, d3 and its axis and
// zoom modules) would add 100–500 KB to every page and a build step
// through npm, and a DOM- or SVG-based one makes one node per mark, which
// a 100,000-event run cannot afford; what the page needs on top of a
// canvas — a piecewise-linear time axis, hit testing by lane and binary
// search, filters over typed arrays — is small. The data travels as JSON
// in flat arrays of integers (times in microseconds, as traces show them)
// plus each event's trace text, and the script rebuilds each trace line
// from them.
//
// # Big runs
//
// A run of 100,000 events makes a page of about 13 MB (most of it the
// trace text, so that every line shows byte for byte). The script keeps
// events in typed arrays with a precomputed place on the axis, draws only
// what is in view, finds marks by lane and binary search, draws a mark of
// one shape once per pixel, and with more than 6,000 events in view draws
// each lane as a density strip (one tick per two pixels, as tall as the
// events there are many) and leaves out the links; the browser test
// reports its size and times.
//
// # Determinism
//
// Rendering is byte-stable: no map order (maps are only looked up), no
// time stamps, no absolute paths; the same run always gives the same
// file. internal/detcheck scans this package with the core's rules.
//
// # Use
//
// [Page.Write] writes a whole file with one tab per [Run] (`durasim
// replay -html FILE`, `durasim run -html FILE` and `-html-dir DIR`, of
// the model or of `-target river`);
// [Fragment], [Style] and [Script] embed timelines in another page (the
// report site). internal/browser's tests load the pages in headless
// Chromium.
package timeline

package target

import (
	"strconv"
	"strings"
)

// Clocks is which clocks a queue keeps apart, declared as data: the
// clock faults that can reach it. A run's clock faults a queue's Clocks
// do not take are refused, and the swarm draws none.
type Clocks struct {
	// Process: each process (a worker) reads a clock of its own and
	// compares it with timestamps other processes or the database wrote
	// (goqite's timeouts), so a worker's clock ahead of or behind the
	// database's reaches the queue's decisions.
	Process bool
	// Local: its processes read local time, so a time zone other than
	// UTC and a daylight-saving transition reach it.
	Local bool
}

// ClockPlan is a run's clock faults, as a queue that keeps clocks of its
// own ([ClockedQueue]) applies them: at virtual time now, an actor's
// process clock reads now + [ClockPlan.Offset], and local time is that
// clock shifted by [ClockPlan.Zone]; the database's clock reads now.
type ClockPlan struct {
	Skews []Skew
	// ZoneBehind is how far the processes' local zone is behind UTC
	// (0: UTC).
	ZoneBehind Time
	// DST are the zone's daylight-saving transitions: from At on, local
	// time is By further ahead.
	DST []Shift
}

// Skew is one worker's process clock (every worker's: Worker -1) off by
// By (negative: behind) from From on. A worker's restarts keep it: the
// host's clock is off, not the process's.
type Skew struct {
	Worker int32
	From   Time
	By     Time
}

// Shift is a daylight-saving transition.
type Shift struct {
	At Time
	By Time
}

// Empty reports whether the plan moves no clock.
func (p ClockPlan) Empty() bool { return len(p.Skews) == 0 && p.ZoneBehind == 0 && len(p.DST) == 0 }

// Offset is how far actor's process clock is off at now: the sum of the
// skews of its worker in force then (0 for an actor that is not a
// worker: the client, the scheduler, the operator).
func (p ClockPlan) Offset(actor string, now Time) Time {
	w, ok := WorkerIndex(actor)
	var d Time
	for _, s := range p.Skews {
		if ok && (s.Worker < 0 || s.Worker == w) && now >= s.From {
			d += s.By
		}
	}
	return d
}

// Zone is the local zone's offset from UTC at now (east positive: a
// zone behind UTC is negative), its daylight-saving transitions counted.
func (p ClockPlan) Zone(now Time) Time {
	d := -p.ZoneBehind
	for _, s := range p.DST {
		if now >= s.At {
			d += s.By
		}
	}
	return d
}

// WorkerIndex is the worker index of an actor named wN or wN.M (a
// restart of wN).
func WorkerIndex(actor string) (int32, bool) {
	rest, ok := strings.CutPrefix(actor, "w")
	if !ok {
		return 0, false
	}
	rest, _, _ = strings.Cut(rest, ".")
	n, err := strconv.ParseInt(rest, 10, 32)
	return int32(n), err == nil && n >= 0
}

// ClockedQueue is a queue that keeps clocks of its own and applies a
// run's clock faults to them (its Policy.Clocks says which): the run
// gives it the plan after each Reset.
type ClockedQueue interface {
	Queue
	SetClocks(p ClockPlan)
}

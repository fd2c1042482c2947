package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/durasim/durasim/model"
)

// Rare conjunctions (issue 25, item 5). A bug that needs two rare
// conditions at once is found only by the seeds that reach both, so a
// sweep counts, per pair, the seeds that reached it, read from the trace
// alone: each fault as the history shows it (a crash, a pause, a broker's
// duplicate, a work failure by its code...) with the pipeline state it
// struck (the stage of the job or of the outbox event it hit; "accept"
// for a request not yet a job, "done" after the final ack, "none" for an
// actor holding nothing), and three pairs of rare paths: a lease found
// expired while the breaker is open or half-open (the conjunction of the
// bug issue 25 names), and in one run quota spent (a token budget or a
// redrive or reprocess limit) × a redrive, a deadline × a pause.
// The summary prints the rarest pairs reached and their share of seeds.

// faultSeen are the faults a trace shows, by the event that shows them.
var faultSeen = [...]string{"crash", "pause", "duplicate", "delay", "reorder", "ambiguous-commit", "deadline-fault",
	"transient", "permanent", "poison", "429"}

// pipeStates are the states a fault can strike.
var pipeStates = [...]string{"ingest", "extract", "validate", "review", "done", "accept", "none"}

const (
	stateDone   = int(model.StageDone)
	stateAccept = stateDone + 1
	stateNone   = stateDone + 2
)

// rarePairs are the pairs of rare paths, after the fault × state pairs.
var rarePairs = [...]string{"lease-expiry@breaker-open", "quota-spent×redrive", "deadline×pause"}

const (
	faultPairs = len(faultSeen) * len(pipeStates)
	pairCount  = faultPairs + len(rarePairs)
)

// PairSet is the pairs one run reached, a bit per pair.
type PairSet [2]uint64

func (p *PairSet) add(i int)         { p[i/64] |= 1 << (i % 64) }
func (p PairSet) Has(i int) bool     { return p[i/64]&(1<<(i%64)) != 0 }
func pairIndex(fault, state int) int { return fault*len(pipeStates) + state }
func rareIndex(i int) int            { return faultPairs + i }

// PairName names pair i ("crash@extract", "deadline×pause").
func PairName(i int) string {
	if i >= faultPairs {
		return rarePairs[i-faultPairs]
	}
	return faultSeen[i/len(pipeStates)] + "@" + pipeStates[i%len(pipeStates)]
}

// cannotOccur says why fault × state pair i can never be seen, or ""
// when it can: what the workload and the injector do, not what a sweep
// happened to reach (a soak of 100,000 seeds reached exactly the others).
// The sweep's summary judges the others: each must be reached by at least
// minPairShare of the seeds (pairs_internal_test.go holds `run -seeds
// 1:2000` to it, and to reaching none of these).
func cannotOccur(i int) string {
	if i >= faultPairs {
		return ""
	}
	state := i % len(pipeStates)
	switch faultSeen[i/len(pipeStates)] {
	case "deadline-fault":
		if state != stateAccept {
			return "a deadline fault strikes a client's request at the door"
		}
	case "duplicate", "delay", "reorder":
		if state >= stateDone {
			return "a broker fault strikes a published message, whose stage is its outbox event's"
		}
	case "transient", "permanent", "429":
		if state != int(model.StageExtract) {
			return "only the extract stage's call to the provider fails so"
		}
	case "poison":
		if state != int(model.StageValidate) {
			return "only the validate stage checks the schema"
		}
	case "pause":
		if state == stateAccept || state == stateNone {
			return "the API's boundary takes crashes only; every other actor pauses holding a job or an event"
		}
	case "ambiguous-commit":
		if state == stateAccept || state == stateNone {
			return "a commit is a worker's, on the job it holds"
		}
	}
	return ""
}

// minPairShare is the share of a sweep's seeds, in ppm, that must reach
// each pair that can occur (issue 25: at least 1% of `run -seeds 1:2000`).
const minPairShare = 10_000

// pairTracker follows a run's events: each job's stage and each outbox
// event's and broker message's stage, and the rare paths seen so far.
type pairTracker struct {
	set      PairSet
	jobStage []uint8 // by job id - 1: the stage its checkpoint is at
	evStage  []uint8 // by event id - 1
	msgStage []uint8 // by broker message id - 1
	rare     [6]bool // breaker not closed now, a lease expiry then, quota spent, redrive, deadline, pause
}

func (t *pairTracker) reset() {
	*t = pairTracker{jobStage: t.jobStage[:0], evStage: t.evStage[:0], msgStage: t.msgStage[:0]}
}

func setAt(s []uint8, i int64, v uint8) []uint8 {
	if i < 1 {
		return s
	}
	for int64(len(s)) < i {
		s = append(s, 0)
	}
	s[i-1] = v
	return s
}

func at(s []uint8, i int64, none int) int {
	if i < 1 || i > int64(len(s)) {
		return none
	}
	return int(s[i-1])
}

// The kinds of event follow, fault and rarePaths read: most events (leases,
// heartbeats, deliveries, workflow records) are none of them, and skip all
// three at a bit test.
const (
	followKinds = 1<<model.EvEnqueue | 1<<model.EvAdvance | 1<<model.EvAck | 1<<model.EvCommit | 1<<model.EvPublish
	faultKinds  = 1<<model.EvCrash | 1<<model.EvPause | 1<<model.EvFault | 1<<model.EvWorkFail
	rareKinds   = 1<<model.EvBreaker | 1<<model.EvLeaseExpired | 1<<model.EvDead | 1<<model.EvDLQWrite |
		1<<model.EvRedrive | 1<<model.EvReprocess | 1<<model.EvCancel | 1<<model.EvCancelAtLease |
		1<<model.EvPause | 1<<model.EvWorkFail | 1<<model.EvRetry
)

// observe notes what e shows. (The test inlines into the recorder: most
// events need no call.)
func (t *pairTracker) observe(e *model.Event) {
	if (followKinds|faultKinds|rareKinds)&e.Kind.Bit() != 0 {
		t.observeRead(e)
	}
}

func (t *pairTracker) observeRead(e *model.Event) {
	bit := e.Kind.Bit()
	if bit&followKinds != 0 {
		t.follow(e)
	}
	if bit&faultKinds != 0 {
		if f, state, ok := t.fault(e); ok {
			t.set.add(pairIndex(f, state))
		}
	}
	if bit&rareKinds != 0 {
		t.rarePaths(e)
	}
}

// follow keeps the stages of jobs, outbox events and messages.
func (t *pairTracker) follow(e *model.Event) {
	switch e.Kind {
	case model.EvEnqueue:
		if e.OK {
			t.jobStage = setAt(t.jobStage, int64(e.Job), uint8(model.StageIngest))
		}
	case model.EvAdvance:
		if e.OK {
			t.jobStage = setAt(t.jobStage, int64(e.Job), uint8(e.Stage))
		}
	case model.EvAck:
		if e.OK {
			t.jobStage = setAt(t.jobStage, int64(e.Job), uint8(stateDone))
		}
	case model.EvCommit:
		if e.EventID != 0 {
			t.evStage = setAt(t.evStage, int64(e.EventID), uint8(e.Stage))
		}
	case model.EvPublish:
		if e.OK {
			t.msgStage = setAt(t.msgStage, e.N, uint8(e.Stage))
		}
	}
}

// fault says which fault e shows, if any, and the state it struck.
func (t *pairTracker) fault(e *model.Event) (f, state int, ok bool) {
	switch e.Kind {
	case model.EvCrash, model.EvPause, model.EvFault, model.EvWorkFail:
	default:
		return 0, 0, false // most events: no fault
	}
	state = t.stateOf(e)
	switch e.Kind {
	case model.EvCrash:
		return 0, state, true
	case model.EvPause:
		return 1, state, true
	case model.EvFault:
		switch e.Text {
		case "duplicate":
			return 2, at(t.msgStage, e.N, stateNone), true
		case "delay":
			return 3, at(t.msgStage, e.N, stateNone), true
		case "reorder":
			return 4, at(t.msgStage, e.N, stateNone), true
		case "ambiguous-commit":
			return 5, state, true
		case "deadline":
			return 6, stateAccept, true
		}
	case model.EvWorkFail:
		switch e.Code {
		case model.CodeTransient:
			return 7, state, true
		case model.CodeContextOverflow, model.CodePermanentError: // a permanent fault is a context overflow
			return 8, state, true
		case model.CodePoisonSchema:
			return 9, state, true
		case model.CodeProviderRateLimited:
			return 10, state, true
		}
	}
	return 0, 0, false
}

// stateOf is the state e's fault strikes: its stage, its job's, its
// outbox event's; an API actor's request is not a job yet.
func (t *pairTracker) stateOf(e *model.Event) int {
	switch {
	case e.HasStage:
		return int(e.Stage)
	case e.Job != 0:
		return at(t.jobStage, int64(e.Job), stateNone)
	case e.EventID != 0:
		return at(t.evStage, int64(e.EventID), stateNone)
	case e.Actor.Role == model.RoleAPI:
		return stateAccept
	}
	return stateNone
}

func (t *pairTracker) rarePaths(e *model.Event) {
	r := &t.rare
	switch e.Kind {
	case model.EvBreaker, model.EvLeaseExpired, model.EvDead, model.EvDLQWrite, model.EvRedrive, model.EvReprocess,
		model.EvCancel, model.EvCancelAtLease, model.EvPause, model.EvWorkFail, model.EvRetry:
	default:
		return // no rare path
	}
	switch {
	case e.Kind == model.EvBreaker:
		r[0] = e.Text != "state=closed"
	case e.Kind == model.EvLeaseExpired:
		r[1] = r[1] || r[0] // an expired lease found while the breaker is open or half-open
	case e.Code == model.CodeBudgetExhausted && (e.Kind == model.EvDead || e.Kind == model.EvDLQWrite),
		e.Code == model.CodeRateLimited && (e.Kind == model.EvRedrive || e.Kind == model.EvReprocess):
		r[2] = true
	case e.Kind == model.EvRedrive && e.OK:
		r[3] = true
	case (e.Kind == model.EvCancel || e.Kind == model.EvCancelAtLease) && e.OK, e.Code == model.CodeDeadlineExceeded:
		r[4] = true
	case e.Kind == model.EvPause:
		r[5] = true
	}
	for i, both := range [len(rarePairs)]bool{r[0] && r[1], r[2] && r[3], r[4] && r[5]} {
		if both {
			t.set.add(rareIndex(i))
		}
	}
}

// pairCounts are a sweep's seeds per pair.
type pairCounts [pairCount]int

func (c *pairCounts) add(p PairSet) {
	for i := range c {
		if p.Has(i) {
			c[i]++
		}
	}
}

// rarestShown is how many of the rarest pairs the summary prints.
const rarestShown = 8

// rarestLine prints the rarest pairs reached, with their share of seeds,
// and how many pairs were reached at all.
func (c *pairCounts) rarestLine(seeds int) string {
	var reached []int
	for i, n := range c {
		if n > 0 {
			reached = append(reached, i)
		}
	}
	if len(reached) == 0 || seeds == 0 {
		return ""
	}
	possible, below := 0, 0
	for i, n := range c {
		if cannotOccur(i) == "" {
			possible++
			if int64(n)*1_000_000 < int64(seeds)*minPairShare {
				below++
			}
		}
	}
	sort.SliceStable(reached, func(a, b int) bool { return c[reached[a]] < c[reached[b]] })
	parts := make([]string, 0, rarestShown)
	for _, i := range reached[:min(len(reached), rarestShown)] {
		parts = append(parts, fmt.Sprintf("%s=%.2f%%", PairName(i), 100*float64(c[i])/float64(seeds)))
	}
	return fmt.Sprintf("%s (seeds reaching each, fault × pipeline state and rare paths in one run: %d reached of the %d that can occur, %d under %d%% of the seeds; %d cannot occur)",
		strings.Join(parts, " "), len(reached), possible, below, minPairShare/10_000, pairCount-possible)
}

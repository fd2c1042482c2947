package model

import "strconv"

// EventKind is what happened. The text names appear in traces.
type EventKind uint8

// Event kinds, grouped by the component that produces them.
const (
	EvNone EventKind = iota
	// API (async request-reply, seed 004).
	EvAccept // request accepted; Job is the id returned to the client
	EvStatus // status query answered; Tenant asked, Text names the owner and state
	// Queue.
	EvEnqueue       // durable enqueue
	EvLease         // job leased: Fence, Attempt; N is the lease span
	EvLeaseExpired  // lease found expired at the next LeaseNext (redelivery)
	EvCancelAtLease // deadline passed while waiting: cancelled instead of leased
	EvExhausted     // redelivered with no attempt left: dead-lettered at lease
	EvHeartbeat     // OK or stale
	EvAdvance       // stage checkpoint: Stage is the next stage to run
	EvAck           // final ack
	EvRetry         // nack → retry_wait; N is the delay, N2 the strategy bound
	EvDead          // job marked dead; Code is the reason
	EvCancel        // job cancelled by the policy (deadline would pass)
	// Outbox, relay, broker, consumer.
	EvCommit  // CommitResultWithEvent: EventID, Code ok/deduped/conflict
	EvDBWrite // dual-write variant: result written with no outbox row
	EvPublish // relay (or dual write) published EventID to the broker
	EvMarkPublished
	EvDeliver // broker delivered EventID to the consumer (N = delivery number)
	EvApply   // consumer applied (OK) or skipped (Code duplicate_event) an effect
	EvPrune   // outbox retention removed a published row (no event id: a relay's whole prune pass)
	// DLQ and operators.
	EvDLQWrite  // envelope written; Code is the reason
	EvRedrive   // redrive: Job back to pending with Key (same or fresh); N2 its new deadline span
	EvReprocess // reprocess: Other is the new job, Text the operator
	EvBreaker   // breaker changed state; Text is the new state
	// Worker work and simulation.
	EvExtract  // stage work started; N is its latency, N2 tokens
	EvWorkFail // stage work failed; Code is the classified reason
	EvCrash    // actor crashed at Boundary
	EvRestart  // actor restarted as a new incarnation
	EvPause    // actor paused at Boundary for N
	EvResume   // paused actor resumed
	EvFault    // a non-actor fault took effect (broker duplicate, 429 burst...)
	EvPhase    // simulation phase change; Text names it
	// EvRefused is an actor's own record of a call the system refused: Text
	// names the call ("call=heartbeat"), Code the reason it was told. The
	// system records its refusal too, just before; the two must agree.
	EvRefused
	// Durable workflows (package workflow) that run a job's stages as
	// activities; Key is the workflow's id (the job's key).
	EvWfEffect // an activity's side effect reached the service: Stage names the activity; OK applied, else deduplicated
	EvWfRecord // an event appended to the durable workflow history: N its history id, Text its kind, Stage the activity
	EvWfReplay // a workflow task replayed the recorded history: N events replayed, N2 activities executed; not OK: rejected, Text why
	eventKindCount
)

var eventKindNames = [eventKindCount]string{
	"none", "accept", "status", "enqueue", "lease", "lease_expired", "cancel_at_lease",
	"exhausted", "heartbeat", "advance", "ack", "retry", "dead", "cancel", "commit",
	"db_write", "publish", "mark_published", "deliver", "apply", "prune", "dlq_write",
	"redrive", "reprocess", "breaker", "extract", "work_fail", "crash", "restart",
	"pause", "resume", "fault", "phase", "refused", "wf_effect", "wf_record", "wf_replay",
}

func (k EventKind) String() string { return enumName(eventKindNames[:], k, "kind") }

// Bit is k's bit in a set of kinds (a uint64: there are fewer than 64
// kinds). The mask tells the compiler so, which spares the shift its
// test for a count past 63.
func (k EventKind) Bit() uint64 { return 1 << (k & 63) }

// The kinds fit a uint64 set (Bit).
var _ [64 - eventKindCount]struct{}

// Event is one entry of a run's history. Fields that do not apply to a kind
// are zero and are not printed. Events are passed by pointer to the
// [Recorder] and must be copied if kept.
type Event struct {
	Seq      uint64 // position in the history (set by the recorder)
	At       Time   // when it happened (set by the recorder)
	Kind     EventKind
	Actor    Actor
	Job      JobID
	Other    JobID // a second job (reprocess: the new job)
	Tenant   string
	Key      string
	Stage    Stage
	HasStage bool
	Fence    uint64
	Attempt  int32
	EventID  EventID
	Code     Code
	OK       bool
	Payload  uint64 // enqueue and commit: the payload hash the request carried (traces show its low 32 bits)
	N        int64  // kind-specific number (documented on the kind)
	N2       int64
	Boundary Boundary
	Text     string // kind-specific label (operator id, breaker state, phase)
}

// AppendText appends the event's stable one-line trace form (without the
// time and sequence prefix, which the recorder owns).
func (e *Event) AppendText(b []byte) []byte {
	b = append(b, e.Kind.String()...)
	if e.Actor.Role != RoleNone {
		b = append(b, ' ')
		b = e.Actor.AppendText(b)
	}
	if e.Job != 0 {
		b = append(b, " j"...)
		b = strconv.AppendInt(b, int64(e.Job), 10)
	}
	if e.Other != 0 {
		b = append(b, " other=j"...)
		b = strconv.AppendInt(b, int64(e.Other), 10)
	}
	if e.Tenant != "" {
		b = append(b, " tenant="...)
		b = appendWord(b, e.Tenant)
	}
	if e.Key != "" {
		b = append(b, " key="...)
		b = appendWord(b, e.Key)
	}
	if e.Payload != 0 {
		b = append(b, " payload="...)
		b = appendHex32(b, uint32(e.Payload))
	}
	if e.HasStage {
		b = append(b, " stage="...)
		b = append(b, e.Stage.String()...)
	}
	if e.Fence != 0 {
		b = append(b, " fence="...)
		b = strconv.AppendUint(b, e.Fence, 10)
	}
	if e.Attempt != 0 {
		b = append(b, " attempt="...)
		b = strconv.AppendInt(b, int64(e.Attempt), 10)
	}
	if e.EventID != 0 {
		b = append(b, " event=e"...)
		b = strconv.AppendInt(b, int64(e.EventID), 10)
	}
	if e.Code != CodeNone {
		b = append(b, " code="...)
		b = append(b, e.Code.String()...)
	}
	if e.Boundary != NoBoundary {
		b = append(b, " at="...)
		b = append(b, e.Boundary.String()...)
	}
	labels := e.labels()
	if e.N != 0 {
		b = appendNumber(b, labels[0], e.N)
	}
	if e.N2 != 0 {
		b = appendNumber(b, labels[1], e.N2)
	}
	if e.Text != "" {
		b = append(b, ' ')
		b = append(b, e.Text...)
	}
	if e.OK {
		b = append(b, " ok"...)
	}
	return b
}

// appendWord appends s as one word of the line: as is, or quoted (Go
// syntax) when it holds a space, a quote or anything unprintable — a
// malformed tenant id may — so that the line still reads back.
func appendWord(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == '"' || c >= 0x7f {
			return strconv.AppendQuote(b, s)
		}
	}
	return append(b, s...)
}

// appendHex32 appends v as 8 lower-case hex digits: a trace shows the low
// half of a payload hash, enough to tell payloads apart by eye (oracles
// compare the whole hash).
func appendHex32(b []byte, v uint32) []byte {
	const digits = "0123456789abcdef"
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, digits[v>>uint(shift)&0xf])
	}
	return b
}

// String is the event's trace form.
func (e *Event) String() string { return string(e.AppendText(nil)) }

// numberLabels names N and N2 per kind in traces. A label starting with '~'
// is a duration in nanoseconds and prints in milliseconds.
var numberLabels = [eventKindCount][2]string{
	EvStatus:    {"n", "n2"},
	EvLease:     {"~lease", "n2"},
	EvHeartbeat: {"~lease", "n2"},
	EvRetry:     {"~delay", "~max"},
	EvExtract:   {"~latency", "tokens"},
	EvPause:     {"~for", "n2"},
	EvWfRecord:  {"id", "n2"},
	EvWfReplay:  {"replayed", "executed"},
	EvDeliver:   {"delivery", "msg"},
	EvApply:     {"delivery", "msg"},
	EvPublish:   {"msg", "n2"},
	EvEnqueue:   {"~deadline", "version"},
	EvRestart:   {"n", "n2"},
	EvRedrive:   {"redrives", "~deadline"},
	EvReprocess: {"version", "n2"},
	EvFault:     {"n", "~for"},
	EvDLQWrite:  {"attempts", "tokens"},
	EvPrune:     {"rows", "n2"}, // a relay's prune pass: the rows it pruned
	EvCrash:     {"n", "msg"},   // a consumer's crash: the message in its hands
}

// labels are the names N and N2 print under for e: its kind's, "n" and
// "n2" where the kind has none, and "current" for the current fence a
// refused call is told (whatever its kind calls N2), so that no two
// events print the same line.
func (e *Event) labels() [2]string {
	l := [2]string{"n", "n2"}
	if e.Kind < eventKindCount {
		for i, s := range numberLabels[e.Kind] {
			if s != "" {
				l[i] = s
			}
		}
	}
	if e.Code == CodeStaleFence {
		l[1] = "current"
	}
	return l
}

func appendNumber(b []byte, label string, v int64) []byte {
	b = append(b, ' ')
	if label[0] != '~' {
		b = append(b, label...)
		b = append(b, '=')
		return strconv.AppendInt(b, v, 10)
	}
	b = append(b, label[1:]...)
	b = append(b, '=')
	return appendMillis(b, v)
}

// appendMillis prints nanoseconds as milliseconds with microsecond
// precision. It mirrors scheduler.AppendMillis (the model imports nothing
// of ours): unsigned magnitude, so MinInt64 prints right, and never "-0".
func appendMillis(b []byte, ns int64) []byte {
	mag := uint64(ns)
	if ns < 0 {
		mag = -mag
	}
	us := mag / 1000
	if us == 0 {
		return append(b, "0ms"...)
	}
	if ns < 0 {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, us/1000, 10)
	if frac := us % 1000; frac != 0 {
		d := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		n := 3
		for d[n-1] == '0' {
			n--
		}
		b = append(append(b, '.'), d[:n]...)
	}
	return append(b, "ms"...)
}

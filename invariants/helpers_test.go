package invariants

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

// Fixture vocabulary: small builders for hand-written histories. Job j
// belongs to tenant "acme" under key "acme:d<j>:v1" unless an event says
// otherwise; hist numbers the events and, where At is zero, puts event n at
// n milliseconds.

const ms = model.Millisecond

var (
	w0       = model.Actor{Role: model.RoleWorker, ID: 0}
	w1       = model.Actor{Role: model.RoleWorker, ID: 1}
	api      = model.Actor{Role: model.RoleAPI}
	op       = model.Actor{Role: model.RoleOperator}
	relay    = model.Actor{Role: model.RoleRelay}
	consumer = model.Actor{Role: model.RoleConsumer}
	lease30s = model.DefaultConfig().Lease
	deadline = model.DefaultConfig().Deadline
)

// testCfg is the default model with two secrets (a document text and the
// raw error that quotes it).
var testCfg = Config{Model: model.DefaultConfig(), Secrets: []string{
	"Fatura 12345 de acme, CPF 123.456.789-00, contato cliente1@example.com",
	"unexpected token near 'Fatura 12345 de acme, CPF 123.456.789-0'",
}}

func key(j model.JobID) string { return "acme:d" + strconv.Itoa(int(j)) + ":v1" }

// It also fills the numbers the broker computes where an event leaves them
// zero, as the system would: a publish gets the next message id, and an
// apply the message that last published its event and the delivery's
// number. A fixture about those numbers sets them itself.
func hist(evs ...model.Event) []model.Event {
	out := slices.Clone(evs)
	var msgs int64
	lastMsg := map[model.EventID]int64{}
	deliveries := map[int64]int64{}
	for i := range out {
		e := &out[i]
		e.Seq = uint64(i + 1)
		switch {
		case e.At != 0:
		case e.Kind == model.EvAccept && i > 0 && out[i-1].Kind == model.EvEnqueue:
			e.At = out[i-1].At // the client's answer comes with its enqueue, as in the simulator
		default:
			e.At = model.Time(i+1) * ms
		}
		switch e.Kind {
		case model.EvPublish:
			msgs++
			if e.N == 0 {
				e.N = msgs
			}
			lastMsg[e.EventID] = e.N
		case model.EvApply:
			if e.N2 == 0 {
				e.N2 = lastMsg[e.EventID]
			}
			deliveries[e.N2]++
			if e.N == 0 {
				e.N = deliveries[e.N2]
			}
		}
	}
	return out
}

// with returns e changed by f.
func with(e model.Event, f func(e *model.Event)) model.Event {
	f(&e)
	return e
}

func at(t model.Time, e model.Event) model.Event  { e.At = t; return e }
func by(a model.Actor, e model.Event) model.Event { e.Actor = a; return e }
func rejected(e model.Event, c model.Code) model.Event {
	e.OK, e.Code = false, c
	return e
}

func jobEv(kind model.EventKind, a model.Actor, j model.JobID) model.Event {
	return model.Event{Kind: kind, Actor: a, Job: j, Tenant: "acme", Key: key(j), OK: true}
}

func enqueue(j model.JobID) model.Event {
	e := jobEv(model.EvEnqueue, api, j)
	e.N, e.N2 = deadline, 1
	return e
}

func enqueueAs(j model.JobID, tenant, k string) model.Event {
	e := enqueue(j)
	e.Tenant, e.Key = tenant, k
	return e
}

func lease(j model.JobID, fence uint64, attempt int32) model.Event {
	e := jobEv(model.EvLease, w0, j)
	e.Fence, e.Attempt, e.N = fence, attempt, lease30s
	return e
}

func fenced(kind model.EventKind, j model.JobID, fence uint64) model.Event {
	e := jobEv(kind, w0, j)
	e.Fence, e.Attempt = fence, 1
	return e
}

func heartbeat(j model.JobID, fence uint64) model.Event {
	e := fenced(model.EvHeartbeat, j, fence)
	e.N = lease30s
	return e
}

func advance(j model.JobID, fence uint64, next model.Stage) model.Event {
	e := fenced(model.EvAdvance, j, fence)
	e.Stage, e.HasStage = next, true
	return e
}

func ack(j model.JobID, fence uint64) model.Event { return fenced(model.EvAck, j, fence) }

func retry(j model.JobID, fence uint64, attempt int32, delay model.Time) model.Event {
	e := fenced(model.EvRetry, j, fence)
	e.Attempt, e.Code, e.N = attempt, model.CodeTransient, delay
	e.N2, _ = backoffBound(testCfg.Model.Retry, attempt)
	return e
}

func dead(j model.JobID, fence uint64, c model.Code) model.Event {
	e := fenced(model.EvDead, j, fence)
	e.Code = c
	return e
}

func cancelAtLease(j model.JobID) model.Event {
	e := jobEv(model.EvCancelAtLease, w0, j)
	e.Code = model.CodeDeadlineExceeded
	return e
}

func stageEv(kind model.EventKind, a model.Actor, j model.JobID, st model.Stage, id model.EventID) model.Event {
	e := jobEv(kind, a, j)
	e.Stage, e.HasStage, e.EventID = st, true, id
	return e
}

func commit(j model.JobID, st model.Stage, id model.EventID) model.Event {
	return stageEv(model.EvCommit, w0, j, st, id)
}

func publish(j model.JobID, st model.Stage, id model.EventID) model.Event {
	return stageEv(model.EvPublish, relay, j, st, id)
}

func apply(j model.JobID, st model.Stage, id model.EventID) model.Event {
	return stageEv(model.EvApply, consumer, j, st, id)
}

func mark(j model.JobID, st model.Stage, id model.EventID) model.Event {
	return stageEv(model.EvMarkPublished, relay, j, st, id)
}

// failed is the worker reporting a failed stage under fence (EvWorkFail).
func failed(j model.JobID, fence uint64, c model.Code) model.Event {
	e := jobEv(model.EvWorkFail, w0, j)
	e.Fence, e.Code, e.OK = fence, c, false
	return e
}

func duplicate(j model.JobID, st model.Stage, id model.EventID) model.Event {
	return rejected(apply(j, st, id), model.CodeDuplicateEvent)
}

func dbWriteEv(j model.JobID, st model.Stage) model.Event {
	return stageEv(model.EvDBWrite, w0, j, st, 0)
}

func dlqWrite(j model.JobID, c model.Code) model.Event {
	e := jobEv(model.EvDLQWrite, w0, j)
	e.Code = c
	return e
}

func redrive(j model.JobID) model.Event {
	e := jobEv(model.EvRedrive, op, j)
	e.N, e.N2 = 1, deadline
	e.HasStage = true // the checkpoint it keeps: ingest unless a fixture says otherwise
	return e
}

func reprocess(old, nj model.JobID, operator string) model.Event {
	e := jobEv(model.EvReprocess, op, old)
	e.Other, e.N, e.Text = nj, 2, "operator="+operator
	return e
}

// reprocessed is the enqueue of job nj redoing job old at version 2.
func reprocessed(nj model.JobID) model.Event {
	e := enqueueAs(nj, "acme", "acme:d1:v2")
	e.N2, e.Actor = 2, op
	return e
}

func status(j model.JobID, asker string) model.Event {
	e := model.Event{Kind: model.EvStatus, Actor: model.Actor{Role: model.RoleClient, ID: 1}, Job: j, Tenant: asker, Key: key(j), OK: true}
	e.Text = "owner=acme state=pending"
	return e
}

func accept(j model.JobID) model.Event {
	return model.Event{Kind: model.EvAccept, Actor: model.Actor{Role: model.RoleClient, ID: 1}, Job: j, Tenant: "acme", OK: true}
}

// stages is one job's four stages committed, checkpointed and acked under
// fence, with event ids first..first+3.
func stages(j model.JobID, fence uint64, first model.EventID) []model.Event {
	var out []model.Event
	for i, st := range model.Stages() {
		out = append(out, commit(j, st, first+model.EventID(i)))
		if st == model.StageReview {
			out = append(out, ack(j, fence))
		} else {
			out = append(out, advance(j, fence, st+1))
		}
	}
	return out
}

// delivered is the relay publishing and marking, and the consumer
// applying, events first..first+3 of job j.
func delivered(j model.JobID, first model.EventID) []model.Event {
	var out []model.Event
	for i, st := range model.Stages() {
		id := first + model.EventID(i)
		out = append(out, publish(j, st, id), mark(j, st, id), apply(j, st, id))
	}
	return out
}

// succeeded is the final state of jobs that ran every stage once, their
// events numbered from 1 in job order.
func succeeded(jobs ...model.JobID) Final {
	var f Final
	id := model.EventID(1)
	for _, j := range jobs {
		f.Jobs = append(f.Jobs, model.Job{ID: j, Tenant: "acme", Key: key(j), State: model.Succeeded})
		for _, st := range model.Stages() {
			f.Rows = append(f.Rows, model.OutboxRow{EventID: id, Key: key(j), Stage: st, Tenant: "acme", Job: j, Published: true})
			f.Effects = append(f.Effects, model.Effect{EventID: id, Key: key(j), Stage: st, Tenant: "acme", Job: j})
			id++
		}
	}
	return f
}

// cat joins event lists.
func cat(parts ...[]model.Event) []model.Event { return slices.Concat(parts...) }

func one(e ...model.Event) []model.Event { return e }

// clean is one job's whole life: enqueue, accept, lease, four stages,
// publication and application of each.
func clean(j model.JobID, fence uint64, first model.EventID) []model.Event {
	return cat(one(enqueue(j), accept(j), lease(j, fence, 1)), stages(j, fence, first), delivered(j, first))
}

// fixture is one row of a checker's table.
type fixture struct {
	name      string
	history   []model.Event // numbered by the runner
	final     Final
	undrained bool
	cfg       *Config // nil: testCfg
	want      []want  // the checker's violations, in order
}

// want is an expected violation: its job, the events proving it, and a
// fragment of its message.
type want struct {
	job    model.JobID
	events []uint64
	msg    string
}

// runTable checks each fixture's violations of invariant inv.
func runTable(t *testing.T, inv string, cases []fixture) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := testCfg
			if c.cfg != nil {
				cfg = *c.cfg
			}
			got := only(Check(cfg, hist(c.history...), c.final, !c.undrained), inv)
			if len(got) != len(c.want) {
				t.Fatalf("got %d %s violations, want %d:\n%s", len(got), inv, len(c.want), lines(got))
			}
			for i, w := range c.want {
				g := got[i]
				if g.Job != w.job || !slices.Equal(g.Events, w.events) || !strings.Contains(g.Message, w.msg) {
					t.Errorf("violation %d = %v (job %v)\nwant job %v, events %v, message containing %q", i, g, g.Job, w.job, w.events, w.msg)
				}
			}
		})
	}
}

// only keeps the violations of invariant inv.
func only(vs []Violation, inv string) []Violation {
	return slices.DeleteFunc(slices.Clone(vs), func(v Violation) bool { return v.Invariant != inv })
}

func lines(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString("  " + v.String() + "\n")
	}
	return b.String()
}

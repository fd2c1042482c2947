package model_test

import (
	"encoding/binary"
	"errors"
	"strconv"
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/scheduler"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// The state-machine test drives the queue and the outbox with random
// operations and checks every observable after each one against a
// reference model small enough to be obviously right.

var (
	smTenants = []string{"acme", "beta"}
	smDocs    = []string{"d1", "d2", "d3"}
	smStages  = []model.Stage{model.StageIngest, model.StageExtract}
	smWorkers = []model.Actor{w1, w2, w3}
)

func smConfig() model.Config {
	c := testConfig()
	c.Lease = 2000 * ms
	c.HeartbeatEvery = 1000 * ms
	c.MaxAttempts = 2
	c.Deadline = 10_000 * ms
	c.Retry = model.RetryConfig{Strategy: model.FullJitter, Base: 1000 * ms, Cap: 4000 * ms}
	c.Breaker = model.BreakerConfig{Window: 100_000, MinSamples: 100_000, ThresholdPPM: 1_000_000, Cooldown: ms, Canaries: 1}
	return c
}

// refJob is the reference's view of a job.
type refJob struct {
	key        string
	hash       uint64
	state      model.State
	attempt    int32
	fence      uint64
	holder     model.Actor
	stage      model.Stage
	visibleAt  model.Time
	leaseUntil model.Time
	deadline   model.Time
}

type refCommit struct {
	hash  uint64
	event model.EventID
}

type refCommitKey struct {
	key   string
	stage model.Stage
}

// queueOutboxMachine holds the system under test and the reference.
type queueOutboxMachine struct {
	cfg model.Config
	clk *fakeClock
	sys *model.System

	now       model.Time
	fence     uint64
	jobs      []refJob // jobs[id-1]
	byKey     map[string]model.JobID
	commits   map[refCommitKey]refCommit
	rows      int
	published int

	jitter *scheduler.Stream // twin of the model's Rand
	seen   map[string]bool   // outcomes reached, so the test is shown not to be vacuous
}

func newQueueOutboxMachine(seen map[string]bool) *queueOutboxMachine {
	m := &queueOutboxMachine{
		seen:    seen,
		jitter:  scheduler.NewStream(1),
		cfg:     smConfig(),
		clk:     &fakeClock{now: scheduler.Epoch},
		byKey:   map[string]model.JobID{},
		commits: map[refCommitKey]refCommit{},
	}
	m.sys = model.NewSystem(m.cfg, nil, model.Env{Clock: m.clk, Epoch: scheduler.Epoch, Rand: scheduler.NewStream(1)})
	return m
}

func (m *queueOutboxMachine) ref(id model.JobID) *refJob { return &m.jobs[id-1] }

// anyJob draws a job, usually a leased one (the interesting target of a
// fenced call), sometimes any job at all.
func (m *queueOutboxMachine) anyJob(t *rapid.T) (model.JobID, bool) {
	if len(m.jobs) == 0 {
		return 0, false
	}
	var leased []model.JobID
	for i := range m.jobs {
		if m.jobs[i].state == model.Leased {
			leased = append(leased, model.JobID(i+1))
		}
	}
	if len(leased) > 0 && rapid.IntRange(0, 3).Draw(t, "pickLeased") > 0 {
		return rapid.SampledFrom(leased).Draw(t, "job"), true
	}
	return model.JobID(rapid.IntRange(1, len(m.jobs)).Draw(t, "job")), true
}

// fenceFor draws the job's current fence most of the time, and otherwise
// any fence ever issued (often stale), zero or one not issued yet.
func (m *queueOutboxMachine) fenceFor(t *rapid.T, id model.JobID) uint64 {
	if rapid.IntRange(0, 2).Draw(t, "staleFence") > 0 {
		return m.ref(id).fence
	}
	return rapid.Uint64Range(0, m.fence+1).Draw(t, "fence")
}

func (m *queueOutboxMachine) enqueue(t *rapid.T) {
	tenant := rapid.SampledFrom(smTenants).Draw(t, "tenant")
	doc := rapid.SampledFrom(smDocs).Draw(t, "doc")
	hash := rapid.Uint64Range(1, 2).Draw(t, "hash")
	id, err := m.sys.Enqueue(model.EnqueueRequest{Tenant: tenant, Document: doc, Version: 1, PayloadHash: hash})
	key := tenant + ":" + doc + ":v1"
	if old, ok := m.byKey[key]; ok {
		if m.ref(old).hash == hash {
			if err != nil || id != old {
				t.Fatalf("re-enqueue of %s = %v, %v; want dedupe to %v", key, id, err, old)
			}
		} else if !isConflict(err) || id != 0 {
			t.Fatalf("enqueue of %s with another payload = %v, %v; want a conflict", key, id, err)
		}
		return
	}
	want := model.JobID(len(m.jobs) + 1)
	if err != nil || id != want {
		t.Fatalf("enqueue of %s = %v, %v; want %v", key, id, err, want)
	}
	m.jobs = append(m.jobs, refJob{key: key, hash: hash, state: model.Pending, visibleAt: m.now, deadline: m.now + m.cfg.Deadline})
	m.byKey[key] = id
}

// readyAt is when the job may next be handed out: its lease expiry if
// leased, its visibility otherwise.
func (j *refJob) readyAt() model.Time {
	if j.state == model.Leased {
		return j.leaseUntil
	}
	return j.visibleAt
}

// nextReady is the earliest (readyAt, id) non-terminal job due now.
func (m *queueOutboxMachine) nextReady() (model.JobID, bool) {
	best := model.JobID(0)
	for i := range m.jobs {
		j := &m.jobs[i]
		if j.state.Terminal() || j.readyAt() > m.now {
			continue
		}
		if best == 0 || j.readyAt() < m.ref(best).readyAt() {
			best = model.JobID(i + 1)
		}
	}
	return best, best != 0
}

func (m *queueOutboxMachine) leaseNext(t *rapid.T) {
	worker := rapid.SampledFrom(smWorkers).Draw(t, "worker")
	got, ok := m.sys.LeaseNext(worker)
	for {
		id, due := m.nextReady()
		if !due {
			if ok {
				t.Fatalf("leased %+v; the reference has nothing due", got)
			}
			return
		}
		j := m.ref(id)
		switch {
		case m.now >= j.deadline:
			j.state = model.Cancelled
			m.seen["cancel at lease"] = true
			continue
		case j.attempt >= m.cfg.MaxAttempts:
			j.state = model.Dead
			m.seen["exhausted at lease"] = true
			continue
		}
		if j.state == model.Leased {
			m.seen["redelivery"] = true
		}
		m.fence++
		j.fence, j.holder, j.state = m.fence, worker, model.Leased
		j.attempt++
		j.leaseUntil = m.now + m.cfg.Lease
		want := model.Lease{Job: id, Fence: m.fence, Stage: j.stage}
		if !ok || got != want {
			t.Fatalf("LeaseNext = %+v, %v; want %+v", got, ok, want)
		}
		return
	}
}

// fenced runs a fenced call and checks the rejections: a stale fence or a
// job that is not leased changes nothing at all. It reports whether the
// call was accepted.
func (m *queueOutboxMachine) fenced(t *rapid.T, id model.JobID, fence uint64, call func() error) bool {
	before, _ := m.sys.Job(id)
	rows := m.sys.Rows()
	err := call()
	j := m.ref(id)
	var want error
	switch {
	case fence != j.fence:
		want = model.ErrStaleFence
	case j.state != model.Leased:
		want = model.ErrNotLeased
	}
	if want == nil {
		if err != nil {
			t.Fatalf("call with the current fence %d on %v: %v", fence, id, err)
		}
		return true
	}
	m.seen[want.Error()] = true
	if !errors.Is(err, want) {
		t.Fatalf("fence %d on %v (current %d, %v): err %v, want %v", fence, id, j.fence, j.state, err, want)
	}
	after, _ := m.sys.Job(id)
	if diff := cmp.Diff(before, after, ignoreUnexported); diff != "" || m.sys.Rows() != rows {
		t.Fatalf("a rejected call (%v) changed the system:\n%s", err, diff)
	}
	return false
}

func (m *queueOutboxMachine) heartbeat(t *rapid.T) {
	id, ok := m.anyJob(t)
	if !ok {
		t.Skip("no job")
	}
	fence := m.fenceFor(t, id)
	if m.fenced(t, id, fence, func() error { return m.sys.Heartbeat(w1, id, fence) }) {
		m.ref(id).leaseUntil = m.now + m.cfg.Lease
	}
}

func (m *queueOutboxMachine) advanceStage(t *rapid.T) {
	id, ok := m.anyJob(t)
	if !ok {
		t.Skip("no job")
	}
	fence := m.fenceFor(t, id)
	next := rapid.SampledFrom([]model.Stage{model.StageExtract, model.StageValidate, model.StageReview}).Draw(t, "stage")
	if m.fenced(t, id, fence, func() error { return m.sys.Advance(w1, id, fence, next) }) {
		m.ref(id).stage = max(m.ref(id).stage, next)
	}
}

func (m *queueOutboxMachine) ack(t *rapid.T) {
	id, ok := m.anyJob(t)
	if !ok {
		t.Skip("no job")
	}
	fence := m.fenceFor(t, id)
	if m.fenced(t, id, fence, func() error { return m.sys.Ack(w1, id, fence) }) {
		m.ref(id).state, m.ref(id).stage = model.Succeeded, model.StageDone
	}
}

func (m *queueOutboxMachine) fail(t *rapid.T) {
	id, ok := m.anyJob(t)
	if !ok {
		t.Skip("no job")
	}
	fence := m.fenceFor(t, id)
	permanent := rapid.Bool().Draw(t, "permanent")
	cause := error(errTransient)
	if permanent {
		cause = errPoison
	}
	var d model.Decision
	accepted := m.fenced(t, id, fence, func() error {
		var err error
		d, err = m.sys.Fail(w1, id, fence, cause)
		return err
	})
	if !accepted {
		return
	}
	j := m.ref(id)
	want := model.Decision{Outcome: model.RetryOutcome}
	switch {
	case permanent:
		want = model.Decision{Outcome: model.DeadLetterOutcome, Reason: model.CodePoisonSchema}
	case j.attempt >= m.cfg.MaxAttempts:
		want = model.Decision{Outcome: model.DeadLetterOutcome, Reason: model.CodeMaxAttemptsExceeded}
	default:
		// The twin stream draws the same full-jitter delay as the model.
		want.Bound = model.BackoffBound(m.cfg.Retry, j.attempt)
		want.Delay = m.jitter.Int64N(want.Bound + 1)
		if m.now+want.Delay >= j.deadline {
			want = model.Decision{Outcome: model.CancelOutcome, Reason: model.CodeDeadlineExceeded}
		}
	}
	if d != want {
		t.Fatalf("Fail(%v, attempt %d) = %+v, want %+v", id, j.attempt, d, want)
	}
	m.seen[d.Outcome.String()+" "+d.Reason.String()] = true
	switch d.Outcome {
	case model.RetryOutcome:
		j.state, j.visibleAt = model.RetryWait, m.now+d.Delay
	case model.CancelOutcome:
		j.state = model.Cancelled
	case model.DeadLetterOutcome: // the worker writes the DLQ, then marks dead
		m.sys.WriteDLQ(w1, id, d.Reason, cause)
		if err := m.sys.MarkDead(w1, id, fence, d.Reason); err != nil {
			t.Fatalf("MarkDead after a dead_letter decision: %v", err)
		}
		j.state = model.Dead
	}
}

func (m *queueOutboxMachine) commit(t *rapid.T) {
	tenant := rapid.SampledFrom(smTenants).Draw(t, "tenant")
	key := tenant + ":" + rapid.SampledFrom(smDocs).Draw(t, "doc") + ":v1"
	stage := rapid.SampledFrom(smStages).Draw(t, "stage")
	hash := rapid.Uint64Range(1, 2).Draw(t, "hash")
	res, err := m.sys.CommitResultWithEvent(model.CommitRequest{Actor: w1, Tenant: tenant, Key: key, Stage: stage, PayloadHash: hash, Value: hash})
	ck := refCommitKey{key, stage}
	old, exists := m.commits[ck]
	switch {
	case !exists:
		m.seen["commit"] = true
		m.rows++
		m.commits[ck] = refCommit{hash: hash, event: model.EventID(m.rows)}
		if err != nil || res != (model.CommitResult{EventID: model.EventID(m.rows), Value: hash}) {
			t.Fatalf("first commit of %v = %+v, %v", ck, res, err)
		}
	case old.hash == hash:
		m.seen["commit deduped"] = true
		if err != nil || res != (model.CommitResult{EventID: old.event, Value: hash, Deduped: true}) {
			t.Fatalf("repeat commit of %v = %+v, %v; want deduped %v", ck, res, err, old.event)
		}
	default:
		m.seen["commit conflict"] = true
		if !isConflict(err) {
			t.Fatalf("conflicting commit of %v = %+v, %v", ck, res, err)
		}
	}
}

func (m *queueOutboxMachine) relay(t *rapid.T) {
	row, ok := m.sys.NextUnpublished()
	if ok != (m.published < m.rows) {
		t.Fatalf("NextUnpublished ok = %v with %d of %d published", ok, m.published, m.rows)
	}
	if !ok {
		return
	}
	if row.EventID != model.EventID(m.published+1) {
		t.Fatalf("relay got %v, want e%d", row.EventID, m.published+1)
	}
	m.sys.MarkPublished(model.Actor{Role: model.RoleRelay}, row.EventID)
	m.published++
}

func (m *queueOutboxMachine) tick(t *rapid.T) {
	// Around the lease (2s), where the edges are; the deadline is 10s.
	d := rapid.SampledFrom([]model.Time{0, 1, 100 * ms, 1000 * ms, 2000*ms - 1, 2000 * ms, 3000 * ms}).Draw(t, "d")
	m.clk.advance(d)
	m.now += d
}

func (m *queueOutboxMachine) check(t *rapid.T) {
	if m.sys.Now() != m.now {
		t.Fatalf("now %d, reference %d", m.sys.Now(), m.now)
	}
	if m.sys.Jobs() != len(m.jobs) {
		t.Fatalf("%d jobs, reference %d", m.sys.Jobs(), len(m.jobs))
	}
	live, dead := 0, 0
	fences := map[uint64]model.JobID{}
	for i := range m.jobs {
		id, r := model.JobID(i+1), &m.jobs[i]
		j, _ := m.sys.Job(id)
		got := refJob{
			key: j.Key, hash: j.PayloadHash, state: j.State, attempt: j.Attempt, fence: j.Fence, holder: j.Holder,
			stage: j.Stage, visibleAt: j.VisibleAt, leaseUntil: j.LeaseUntil, deadline: j.DeadlineAt,
		}
		if got != *r {
			t.Fatalf("job %v:\n got %+v\nwant %+v", id, got, *r)
		}
		if j.Attempt > j.MaxAttempts {
			t.Fatalf("job %v ran %d attempts, max %d", id, j.Attempt, j.MaxAttempts)
		}
		if j.Fence > m.fence {
			t.Fatalf("job %v holds fence %d, only %d issued", id, j.Fence, m.fence)
		}
		if j.Fence != 0 {
			if other, dup := fences[j.Fence]; dup {
				t.Fatalf("jobs %v and %v hold the same fence %d", other, id, j.Fence)
			}
			fences[j.Fence] = id
		}
		m.seen[r.state.String()] = true
		if !r.state.Terminal() {
			live++
		}
		if r.state == model.Dead {
			dead++
		}
	}
	if m.sys.Live() != live {
		t.Fatalf("live %d, reference %d", m.sys.Live(), live)
	}
	if n := len(m.sys.DLQEntries()); n != dead {
		t.Fatalf("%d DLQ entries for %d dead jobs", n, dead)
	}
	if m.sys.Rows() != m.rows || m.sys.PendingRows() != m.rows-m.published {
		t.Fatalf("rows %d (pending %d), reference %d (%d published)", m.sys.Rows(), m.sys.PendingRows(), m.rows, m.published)
	}
	for _, tenant := range smTenants {
		for _, doc := range smDocs {
			for _, stage := range smStages {
				ck := refCommitKey{tenant + ":" + doc + ":v1", stage}
				res, ok := m.sys.Committed(ck.key, stage)
				want, wantOK := m.commits[ck]
				if ok != wantOK || (ok && (res.PayloadHash != want.hash || res.EventID != want.event || res.Tenant != tenant)) {
					t.Fatalf("Committed(%v) = %+v, %v; reference %+v, %v", ck, res, ok, want, wantOK)
				}
			}
		}
	}
}

// queueOutboxProp runs the machine; seen collects the outcomes reached.
func queueOutboxProp(seen map[string]bool) func(*rapid.T) {
	return func(t *rapid.T) {
		m := newQueueOutboxMachine(seen)
		// Leases, failures and time are listed twice: rapid picks actions
		// uniformly, and these are what reach retries, expiry and deadlines.
		t.Repeat(map[string]func(*rapid.T){
			"enqueue":    m.enqueue,
			"leaseNext":  m.leaseNext,
			"leaseNext2": m.leaseNext,
			"heartbeat":  m.heartbeat,
			"advance":    m.advanceStage,
			"ack":        m.ack,
			"fail":       m.fail,
			"fail2":      m.fail,
			"commit":     m.commit,
			"relay":      m.relay,
			"tick":       m.tick,
			"tick2":      m.tick,
			"":           m.check,
		})
	}
}

func TestQueueAndOutboxStateMachine(t *testing.T) {
	rapid.Check(t, queueOutboxProp(map[string]bool{}))
}

// The machine is not vacuous: over a fixed set of inputs (rapid driven from
// deterministic bytes, so this test cannot flake) it reaches every state and
// every kind of outcome the reference distinguishes.
func TestQueueAndOutboxStateMachineReachesEveryOutcome(t *testing.T) {
	seen := map[string]bool{}
	run := rapid.MakeFuzz(queueOutboxProp(seen))
	for i := range uint64(300) {
		input := make([]byte, 8<<10)
		s := scheduler.NewStream(i)
		for k := 0; k < len(input); k += 8 {
			binary.LittleEndian.PutUint64(input[k:], s.Uint64())
		}
		t.Run(strconv.FormatUint(i, 10), func(t *testing.T) { run(t, input) })
	}
	for _, want := range []string{
		"pending", "leased", "retry_wait", "succeeded", "dead", "cancelled",
		"redelivery", "cancel at lease", "exhausted at lease",
		model.ErrStaleFence.Error(), model.ErrNotLeased.Error(),
		"retry ", "dead_letter poison_schema", "dead_letter max_attempts_exceeded", "cancel deadline_exceeded",
		"commit", "commit deduped", "commit conflict",
	} {
		if !seen[want] {
			t.Errorf("the state machine never reached %q", want)
		}
	}
}

package invariants

import (
	"strings"
	"testing"

	"github.com/durasim/durasim/model"
)

var (
	wA = model.Actor{Role: model.RoleWorker, ID: 0}
	wB = model.Actor{Role: model.RoleWorker, ID: 1}
)

func enqueued(seq uint64) model.Event {
	return model.Event{Seq: seq, Kind: model.EvEnqueue, Job: 1, Tenant: "acme", Key: "acme:d:v1", N: 900_000 * ms, N2: 1, OK: true}
}

func leased(seq uint64, at model.Time, actor model.Actor, fence uint64, attempt int32) model.Event {
	return model.Event{Seq: seq, At: at, Kind: model.EvLease, Actor: actor, Job: 1, Tenant: "acme", Key: "acme:d:v1",
		Fence: fence, Attempt: attempt, N: 30_000 * ms, OK: true}
}

func extracted(seq uint64, at model.Time, actor model.Actor, fence uint64, latency model.Time, tokens int64) model.Event {
	return model.Event{Seq: seq, At: at, Kind: model.EvExtract, Actor: actor, Job: 1, Stage: model.StageIngest,
		HasStage: true, Fence: fence, N: latency, N2: tokens}
}

func violationsOf(t *testing.T, inv string, history []model.Event) []Violation {
	t.Helper()
	var out []Violation
	for _, v := range Check(Config{Model: model.DefaultConfig()}, history, Final{}, false) {
		if v.Invariant == inv {
			out = append(out, v)
		}
	}
	return out
}

func TestWastedWork(t *testing.T) {
	tests := []struct {
		name    string
		history []model.Event
		want    []uint64 // events of the violation; nil: none
	}{
		{"one worker, long extraction, heartbeats", []model.Event{
			enqueued(1), leased(2, 0, wA, 1, 1), extracted(3, 1*ms, wA, 1, 50_000*ms, 3000),
		}, nil},
		{"lease expired mid-extraction: a second worker extracts at the same time", []model.Event{
			enqueued(1), leased(2, 0, wA, 1, 1), extracted(3, 1*ms, wA, 1, 50_000*ms, 3000),
			leased(4, 30_001*ms, wB, 2, 2), extracted(5, 30_002*ms, wB, 2, 50_000*ms, 3000),
		}, []uint64{3, 5}},
		{"the first worker crashed: its work ended with it", []model.Event{
			enqueued(1), leased(2, 0, wA, 1, 1), extracted(3, 1*ms, wA, 1, 50_000*ms, 3000),
			{Seq: 4, At: 2 * ms, Kind: model.EvCrash, Actor: wA, Job: 1, Fence: 1, Boundary: model.AfterLease},
			leased(5, 30_001*ms, wB, 2, 2), extracted(6, 30_002*ms, wB, 2, 50_000*ms, 3000),
		}, nil},
		{"the first worker's heartbeat was refused: it dropped the job", []model.Event{
			enqueued(1), leased(2, 0, wA, 1, 1), extracted(3, 1*ms, wA, 1, 50_000*ms, 3000),
			leased(4, 30_001*ms, wB, 2, 2),
			{Seq: 5, At: 30_005 * ms, Kind: model.EvHeartbeat, Actor: wA, Job: 1, Fence: 1, Code: model.CodeStaleFence},
			extracted(6, 30_006*ms, wB, 2, 50_000*ms, 3000),
		}, nil},
		{"a retry by the same lease holder after its extraction ended", []model.Event{
			enqueued(1), leased(2, 0, wA, 1, 1), extracted(3, 1*ms, wA, 1, 100*ms, 3000),
			leased(4, 500*ms, wB, 2, 2), extracted(5, 501*ms, wB, 2, 100*ms, 3000),
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := violationsOf(t, WastedWork, tt.history)
			if tt.want == nil {
				if len(got) != 0 {
					t.Fatalf("unexpected: %v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Job != 1 || !equalSeqs(got[0].Events, tt.want) {
				t.Fatalf("got %v, want one wasted-work violation of j1 naming events %v", got, tt.want)
			}
		})
	}
}

func equalSeqs(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A retry of a permanent error, and an attempt started with the budget
// spent, break bounded-retries (retry-permanent, ignore-budget).
func TestBoundedRetriesPermanentAndBudget(t *testing.T) {
	retried := func(seq uint64, code model.Code) model.Event {
		return model.Event{Seq: seq, At: 200 * ms, Kind: model.EvRetry, Actor: wA, Job: 1, Fence: 1, Attempt: 1,
			Code: code, N: 10 * ms, OK: true}
	}
	transient := []model.Event{enqueued(1), leased(2, 0, wA, 1, 1), retried(3, model.CodeTransient)}
	if v := violationsOf(t, BoundedRetries, transient); len(v) != 0 {
		t.Fatalf("transient retry flagged: %v", v)
	}
	poison := []model.Event{enqueued(1), leased(2, 0, wA, 1, 1), retried(3, model.CodePoisonSchema)}
	if v := violationsOf(t, BoundedRetries, poison); len(v) != 1 || !strings.Contains(v[0].Message, "permanent") {
		t.Fatalf("retry of a poison message: got %v", v)
	}
	cheap := []model.Event{enqueued(1), leased(2, 0, wA, 1, 1), extracted(3, 1*ms, wA, 1, 10*ms, 2000),
		retried(4, model.CodeTransient), leased(5, 300*ms, wB, 2, 2)}
	if v := violationsOf(t, BoundedRetries, cheap); len(v) != 0 {
		t.Fatalf("attempt within budget flagged: %v", v)
	}
	dear := []model.Event{enqueued(1), leased(2, 0, wA, 1, 1), extracted(3, 1*ms, wA, 1, 10*ms, 6500),
		retried(4, model.CodeTransient), leased(5, 300*ms, wB, 2, 2)}
	v := violationsOf(t, BoundedRetries, dear)
	if len(v) != 1 || !strings.Contains(v[0].Message, "tokens already spent") || !equalSeqs(v[0].Events, []uint64{3, 5}) {
		t.Fatalf("attempt after the budget: got %v", v)
	}
}

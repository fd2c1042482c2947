package model_test

import (
	"testing"

	"github.com/durasim/durasim/model"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Every event reads back from its trace form: fields the line prints come
// back exactly (durations to the microsecond, the payload's low 32 bits).
func TestEventTextRoundTrips(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		e := drawEvent(rt)
		back, err := model.ParseEventText(e.String())
		if err != nil {
			rt.Fatalf("%q: %v", e.String(), err)
		}
		if d := cmp.Diff(asPrinted(e), back); d != "" {
			rt.Fatalf("%q reads back otherwise (-printed +read):\n%s", e.String(), d)
		}
	})
}

func drawEvent(rt *rapid.T) model.Event {
	word := rapid.StringMatching(`[a-z][a-z0-9:-]{0,12}`)
	// Zero often: a number left out of the line must not be taken for the
	// other (a kind with no labels once printed N2 as "n=").
	number := rapid.OneOf(rapid.Just(int64(0)), rapid.Int64Range(-1<<50, 1<<50))
	e := model.Event{
		Kind:  model.EventKind(rapid.IntRange(1, int(model.EvPhase)).Draw(rt, "kind")),
		Job:   model.JobID(rapid.Int64Range(0, 1<<40).Draw(rt, "job")),
		Other: model.JobID(rapid.Int64Range(0, 1<<20).Draw(rt, "other")),
		Fence: rapid.Uint64().Draw(rt, "fence"), Attempt: rapid.Int32Range(0, 1<<30).Draw(rt, "attempt"),
		EventID: model.EventID(rapid.Int64Range(0, 1<<40).Draw(rt, "event")),
		Code:    model.Code(rapid.IntRange(0, int(model.CodeMissingOperator)).Draw(rt, "code")),
		OK:      rapid.Bool().Draw(rt, "ok"), Payload: rapid.Uint64().Draw(rt, "payload"),
		N: number.Draw(rt, "n"), N2: number.Draw(rt, "n2"),
		Boundary: model.Boundary(rapid.IntRange(0, len(model.Boundaries())).Draw(rt, "boundary")),
	}
	if rapid.Bool().Draw(rt, "actor") {
		e.Actor = model.Actor{Role: model.Role(rapid.IntRange(1, int(model.RoleSim)).Draw(rt, "role")),
			Incarnation: rapid.Int32Range(0, 9).Draw(rt, "inc")}
		if e.Actor.Role == model.RoleWorker || e.Actor.Role == model.RoleClient {
			e.Actor.ID = rapid.Int32Range(0, 999).Draw(rt, "id")
		}
	}
	if rapid.Bool().Draw(rt, "strings") {
		e.Tenant, e.Key = word.Draw(rt, "tenant"), word.Draw(rt, "key")
	}
	if rapid.Bool().Draw(rt, "stage") {
		e.Stage, e.HasStage = model.Stage(rapid.IntRange(0, int(model.StageDone)).Draw(rt, "st")), true
	}
	if rapid.Bool().Draw(rt, "text") {
		e.Text = rapid.SampledFrom([]string{"state=open", "owner=acme state=leased", "operator=op-ana", "drained",
			"refused: acme:d1:v1 already committed with a different payload"}).Draw(rt, "text")
	}
	return e
}

// asPrinted is e at the precision its line prints.
func asPrinted(e model.Event) model.Event {
	e.Payload = uint64(uint32(e.Payload))
	us := func(t int64) int64 { return t / 1000 * 1000 }
	if e.IsDuration(0) {
		e.N = us(e.N)
	}
	if e.IsDuration(1) {
		e.N2 = us(e.N2)
	}
	return e
}

func TestParseEventTextRefusesNonsense(t *testing.T) {
	for _, line := range []string{"nothing", "lease w0 j1 stage=somewhere", "lease w0 j1 lease=12", "retry w0 j1 code=nope"} {
		if _, err := model.ParseEventText(line); err == nil {
			t.Errorf("%q parsed", line)
		}
	}
}

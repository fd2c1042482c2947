package scenarios

import (
	"fmt"

	"github.com/durasim/durasim/model"
	"github.com/durasim/durasim/sim"
)

// Figure is one number of an arm's run, as a row of a report's outcome
// table shows it. Claims compare figures, so a sentence about the numbers
// and the table beside it read the same values.
type Figure uint8

// The figures claims may compare (rows of the outcome table).
const (
	FigAttempts    Figure = iota // leases granted
	FigExtractions               // extraction calls (the LLM)
	FigRetries                   // retries scheduled
	FigRateLimited               // provider 429 answers
	FigTokens                    // tokens spent by every extraction
	FigDLQTokens                 // tokens of the jobs written to the DLQ
	FigDLQEntries                // DLQ writes (a job redriven and dead again counts twice)
	FigEffects                   // effects the consumer applied
	FigLastSettled               // when the last job reached a final state
	figureCount
)

// Says is the figure's name: the label of its row in the outcome table.
func (f Figure) Says() Text {
	return [figureCount]Text{
		FigAttempts:    {PtBR: "tentativas (leases)", En: "attempts (leases)"},
		FigExtractions: {PtBR: "extrações (chamadas ao LLM)", En: "extractions (LLM calls)"},
		FigRetries:     {PtBR: "retries agendados", En: "retries scheduled"},
		FigRateLimited: {PtBR: "respostas 429 do provedor", En: "provider 429 answers"},
		FigTokens:      {PtBR: "tokens gastos", En: "tokens spent"},
		FigDLQTokens:   {PtBR: "tokens dos jobs que foram para a DLQ", En: "tokens of the jobs that went to the DLQ"},
		FigDLQEntries:  {PtBR: "entradas na DLQ", En: "DLQ entries"},
		FigEffects:     {PtBR: "efeitos aplicados", En: "effects applied"},
		FigLastSettled: {PtBR: "último job terminou em", En: "last job settled at"},
	}[f]
}

// Duration reports whether the figure is a time (model.Time) rather than a
// count.
func (f Figure) Duration() bool { return f == FigLastSettled }

// Of is the figure's value in run r.
func (f Figure) Of(r *sim.Result) int64 {
	m := &r.Metrics
	switch f {
	case FigAttempts:
		return m.Leases
	case FigExtractions:
		return m.Extractions
	case FigRetries:
		return m.Retries
	case FigRateLimited:
		return m.RateLimited
	case FigTokens:
		return m.Tokens
	case FigDLQTokens:
		return dlqTokens(r)
	case FigDLQEntries:
		return m.Dead
	case FigEffects:
		return m.Effects
	case FigLastSettled:
		return LastSettled(r)
	}
	panic(fmt.Sprintf("scenarios: unknown figure %d", f))
}

// LastSettled is when the last job reached a final state (acked, written
// to the DLQ or cancelled): where the queue depth drops to zero for good.
// The run's Drained time is later: it is checked only from the
// quiescence phase on.
func LastSettled(r *sim.Result) model.Time {
	last := model.Time(0)
	for i := range r.History {
		e := &r.History[i]
		switch e.Kind {
		case model.EvAck, model.EvDead, model.EvExhausted, model.EvCancel, model.EvCancelAtLease:
			if e.OK {
				last = max(last, e.At)
			}
		}
	}
	return last
}

// Rel is how one figure relates to another.
type Rel int8

// The relations a claim may state.
const (
	Less  Rel = -1
	Equal Rel = 0
	More  Rel = 1
)

// RelOf is the relation of a to b.
func RelOf(a, b int64) Rel {
	switch {
	case a < b:
		return Less
	case a > b:
		return More
	}
	return Equal
}

// Claim is a sentence of a scenario's story about its numbers: arm Arm's
// Figure relates to arm Other's as Rel says, for the reason Why. Reports
// write the sentence from the run's figures (never from a hard-coded
// number), so it stays true when the numbers move; Check says whether the
// relation the story relies on still holds.
type Claim struct {
	Arm, Other string
	Figure     Figure
	Rel        Rel
	Why        Text // the reason, in words; the sentence carries the numbers
}

// Values are the claim's figure for Arm and for Other in the outcomes.
func (c Claim) Values(all []Outcome) (a, b int64, err error) {
	x, err := arm(all, c.Arm)
	if err != nil {
		return 0, 0, err
	}
	y, err := arm(all, c.Other)
	if err != nil {
		return 0, 0, err
	}
	return c.Figure.Of(x.Result), c.Figure.Of(y.Result), nil
}

// Check returns nil when the claimed relation holds in the outcomes.
func (c Claim) Check(all []Outcome) error {
	a, b, err := c.Values(all)
	if err != nil {
		return err
	}
	if got := RelOf(a, b); got != c.Rel {
		return fmt.Errorf("%s: %s %d, %s %d: the story claims %s", c.Figure.Says().En, c.Arm, a, c.Other, b, c.Rel)
	}
	return nil
}

func (r Rel) String() string {
	switch r {
	case Less:
		return "less"
	case More:
		return "more"
	}
	return "equal"
}

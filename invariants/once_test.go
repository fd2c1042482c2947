package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

// clean(1, 1, 1) numbers its events: #1 enqueue, #2 accept, #3 lease,
// #4..#11 commit/advance per stage ending with the ack at #11, then
// publish/mark/apply triples with the applies at #14, #17, #20 and #23.

func TestExactlyOnce(t *testing.T) {
	fresh := "acme:d1:v1:redrive:1"
	freshKey := func(e *model.Event) { e.Key = fresh }
	twoReviews := succeeded(1)
	twoReviews.Rows = append(twoReviews.Rows, model.OutboxRow{EventID: 5, Key: key(1), Stage: model.StageReview, Tenant: "acme", Job: 1})
	twoReviews.Effects = append(twoReviews.Effects, model.Effect{EventID: 5, Key: key(1), Stage: model.StageReview, Tenant: "acme", Job: 1})
	noReview := succeeded(1)
	noReview.Effects = noReview.Effects[:3]
	extraExtract := succeeded(1)
	extraExtract.Effects = append(extraExtract.Effects, extraExtract.Effects[1])

	runTable(t, ExactlyOnce, []fixture{
		{name: "one effect per stage", history: clean(1, 1, 1), final: succeeded(1)},
		{name: "duplicate delivery skipped by the consumer",
			history: cat(clean(1, 1, 1), one(publish(1, model.StageReview, 4), duplicate(1, model.StageReview, 4))),
			final:   succeeded(1)},
		{name: "consumer without dedupe applies an event twice",
			history: cat(clean(1, 1, 1), one(apply(1, model.StageReview, 4))),
			final:   succeeded(1),
			want:    []want{{1, []uint64{23, 24}, "j1 stage=review applied twice under key acme:d1:v1"}}},
		{name: "commit without lookup: a second event for the same stage",
			history: cat(clean(1, 1, 1), one(commit(1, model.StageReview, 5), publish(1, model.StageReview, 5), apply(1, model.StageReview, 5))),
			final:   twoReviews,
			want: []want{
				{1, []uint64{10, 24}, "j1 stage=review committed twice under key acme:d1:v1 (e4, then e5)"},
				{1, []uint64{23, 26}, "stage=review applied twice under key acme:d1:v1"},
			}},
		{name: "redrive under a fresh key redoes a committed stage",
			history: one(
				enqueue(1), lease(1, 1, 1), // #1, #2
				commit(1, model.StageIngest, 1), advance(1, 1, model.StageExtract), // #3, #4
				commit(1, model.StageExtract, 2), dead(1, 1, model.CodeMaxAttemptsExceeded), // #5, #6
				publish(1, model.StageIngest, 1), apply(1, model.StageIngest, 1), // #7, #8
				publish(1, model.StageExtract, 2), apply(1, model.StageExtract, 2), // #9, #10
				with(redrive(1), freshKey), with(lease(1, 2, 1), freshKey), // #11, #12
				with(commit(1, model.StageExtract, 3), freshKey), with(publish(1, model.StageExtract, 3), freshKey), // #13, #14
				with(apply(1, model.StageExtract, 3), freshKey), // #15
			),
			want: []want{{1, []uint64{10, 15}, "j1 stage=extract applied twice, the second time under key " + fresh}}},
		{name: "succeeded job with a stage never applied",
			history: clean(1, 1, 1), final: noReview,
			want: []want{{1, []uint64{11}, "j1 succeeded but stage=review has no applied effect"}}},
		{name: "final state holds two effects of a stage applied once in the history",
			history: clean(1, 1, 1), final: extraExtract,
			want: []want{{1, []uint64{11, 17}, "j1 stage=extract has 2 applied effects in the final state"}}},
		{name: "effects still in flight are not judged before the run drained",
			history: clean(1, 1, 1)[:11], final: noReview, undrained: true},
	})
}

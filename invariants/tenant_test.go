package invariants

import (
	"testing"

	"github.com/durasim/durasim/model"
)

func TestTenantIsolation(t *testing.T) {
	as := func(tenant, k string) func(e *model.Event) {
		return func(e *model.Event) { e.Tenant, e.Key = tenant, k }
	}
	globex2 := enqueueAs(2, "globex", "globex:d1:v1")
	runTable(t, TenantIsolation, []fixture{
		{name: "same document in two tenants, status asked by the owner",
			history: one(enqueueAs(1, "acme", "acme:d1:v1"), globex2, status(1, "acme"),
				rejected(status(1, "globex"), model.CodeNotFound), with(lease(2, 1, 1), as("globex", "globex:d1:v1")))},
		{name: "key without tenant: another tenant's enqueue deduped onto the key",
			history: one(enqueueAs(1, "acme", "d1:v1"), rejected(enqueueAs(1, "globex", "d1:v1"), model.CodeDeduped)),
			want: []want{
				{1, []uint64{1}, `j1 enqueued under key d1:v1, which is not tenant:document:v1 of a valid tenant "acme"`},
				{1, []uint64{1, 2}, "key d1:v1 of tenant acme carried by tenant globex (enqueue)"},
			}},
		{name: "a key of another version than the job's",
			history: one(with(enqueue(1), func(e *model.Event) { e.N2 = 2 })),
			want:    []want{{1, []uint64{1}, "j1 enqueued under key acme:d1:v1, which is not tenant:document:v2"}}},
		{name: "an invalid tenant id",
			history: one(enqueueAs(1, "Acme", "Acme:d1:v1")),
			want:    []want{{1, []uint64{1}, `which is not tenant:document:v1 of a valid tenant "Acme"`}}},
		{name: "a key with no document",
			history: one(enqueueAs(1, "acme", "acme::v1")),
			want:    []want{{1, []uint64{1}, "j1 enqueued under key acme::v1"}}},
		{name: "a reprocessed job's key at the next version", history: one(enqueue(1), reprocessed(2))},
		{name: "status answered to another tenant",
			history: one(enqueue(1), status(1, "globex")),
			want:    []want{{1, []uint64{1, 2}, "status of j1 (tenant acme) answered to tenant globex"}}},
		{name: "commit by another tenant under a key it does not own",
			history: one(enqueue(1), globex2, with(commit(2, model.StageIngest, 1), as("globex", key(1)))),
			want:    []want{{2, []uint64{1, 3}, "key acme:d1:v1 of tenant acme carried by tenant globex (commit)"}}},
		{name: "one tenant's job applied under another tenant's key",
			history: one(enqueue(1), globex2, with(apply(2, model.StageIngest, 1), as("acme", key(1)))),
			want:    []want{{2, []uint64{1, 2, 3}, "j2 of tenant globex: apply under key acme:d1:v1 of tenant acme"}}},
		{name: "a job's effect applied for another tenant",
			history: one(enqueue(1), with(apply(1, model.StageIngest, 1), as("globex", "unowned:key"))),
			want:    []want{{1, []uint64{1, 2}, "j1 of tenant acme: apply for tenant globex"}}},
		{name: "job id returned to a client of another tenant",
			history: one(enqueue(1), with(accept(1), func(e *model.Event) { e.Tenant = "globex" })),
			want:    []want{{1, []uint64{1, 2}, "j1 (tenant acme) returned to a client of tenant globex"}}},
	})
}

// told is a client's record of a status answer about job j: the state and
// reason it was told.
func told(j model.JobID, answer string) model.Event {
	e := status(j, "acme")
	e.Text = answer
	return e
}

// TestStatusAnswer: status checks what a client was told against the
// history: the job's state, and the reason of the last failure the queue
// took (a refused report changes nothing).
func TestStatusAnswer(t *testing.T) {
	failedOnce := one(enqueue(1), lease(1, 1, 1), failed(1, 1, model.CodeTransient), retry(1, 1, 1, 0))
	then := cat(one(lease(1, 2, 2)), rest(1, 2, 1))
	runOracle(t, Consistency, []fixture{
		{name: "a pending job, no reason", history: cat(one(enqueue(1), told(1, "state=pending"), lease(1, 1, 1)), rest(1, 1, 1)), final: succeeded(1)},
		{name: "a retried job and the failure that retried it",
			history: cat(failedOnce, one(told(1, "state=retry_wait reason=transient_error")), then), final: succeeded(1)},
		{name: "the reason outlives the retry",
			history: cat(failedOnce, one(lease(1, 2, 2), told(1, "state=leased reason=transient_error")), rest(1, 2, 1)), final: succeeded(1)},
		{name: "a state the history does not have",
			history: cat(failedOnce, one(told(1, "state=pending reason=transient_error")), then), final: succeeded(1),
			want: []want{{1, []uint64{4, 5}, "status of j1 answered pending, the history says retry_wait"}}},
		{name: "a retried job answered with no reason",
			history: cat(failedOnce, one(told(1, "state=retry_wait")), then), final: succeeded(1),
			want: []want{{1, []uint64{4, 5}, `status of j1 answered reason "", the history's last failure reason is "transient_error"`}}},
		{name: "a reason for a job that never failed",
			history: cat(one(enqueue(1), told(1, "state=pending reason=provider_429"), lease(1, 1, 1)), rest(1, 1, 1)), final: succeeded(1),
			want: []want{{1, []uint64{1, 2}, `status of j1 answered reason "provider_429", the history's last failure reason is ""`}}},
	})
}

func TestKeyShaped(t *testing.T) {
	for _, c := range []struct {
		key, tenant string
		version     int64
		want        bool
	}{
		{"acme:d1:v1", "acme", 1, true},
		{"acme:d1:v12", "acme", 12, true},
		{"acme:a:b:v3", "acme", 3, true},
		{"acme:d1:v12", "acme", 2, false},
		{"acme:d1:v2", "acme", 12, false},
		{"acmex:d1:v1", "acme", 1, false},
		{"acme::v1", "acme", 1, false},
		{"acme:d1:1", "acme", 1, false},
		{"acme:d1:v-1", "acme", -1, true},
		{"d1:v1", "acme", 1, false},
		{"", "acme", 1, false},
	} {
		if got := keyShaped(c.key, c.tenant, c.version); got != c.want {
			t.Errorf("keyShaped(%q, %q, %d) = %v, want %v", c.key, c.tenant, c.version, got, c.want)
		}
	}
}

package model

// Job is a unit of work with its four clocks (seed 000): createdAt measures
// age, visibleAt says when it can be leased, leaseUntil how long the current
// holder is exclusive, deadlineAt the absolute ceiling whatever the attempts.
type Job struct {
	ID          JobID
	Tenant      string
	Document    string
	Version     int32
	Key         string
	PayloadHash uint64

	State       State
	Attempt     int32 // attempts started (leases granted)
	MaxAttempts int32

	CreatedAt  Time
	VisibleAt  Time
	LeaseUntil Time
	DeadlineAt Time

	Fence  uint64 // fence of the current (or last) lease
	Holder Actor  // who holds (or last held) the lease

	Stage        Stage // checkpoint: the next stage to run
	TokensSpent  int64
	TokenBudget  int64
	RedriveCount int32
	LastCode     Code  // classified reason of the last failure
	Origin       JobID // for a reprocessed job: the dead job it redoes

	gen uint32 // bumps whenever the job's entry in the ready heap changes
}

// readyEntry says job may become leasable at At (visibleAt for waiting jobs,
// leaseUntil for leased ones). Entries whose gen no longer matches the job's
// are stale and skipped.
type readyEntry struct {
	at  Time
	job JobID
	gen uint32
}

// readyHeap orders entries by (at, job id): FIFO among jobs visible at once.
type readyHeap struct{ items []readyEntry }

func (h *readyHeap) less(i, j int) bool {
	a, b := &h.items[i], &h.items[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.job < b.job
}

func (h *readyHeap) push(e readyEntry) {
	h.items = append(h.items, e)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *readyHeap) pop() readyEntry {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	i, n := 0, last
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		s := l
		if r := l + 1; r < n && h.less(r, l) {
			s = r
		}
		if !h.less(s, i) {
			break
		}
		h.items[i], h.items[s] = h.items[s], h.items[i]
		i = s
	}
	return top
}

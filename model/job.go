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

	slot int32 // where the job's entry is in the ready heap, plus one (0: none)
}

// readyEntry says job may become leasable at At (visibleAt for waiting jobs,
// leaseUntil for leased ones).
type readyEntry struct {
	at  Time
	job JobID
}

func (a *readyEntry) before(b *readyEntry) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.job < b.job
}

// readyHeap orders entries by (at, job id): FIFO among jobs visible at once.
// It holds at most one entry per job, and each job knows where its entry is
// (Job.slot): rescheduling a job moves its entry, unscheduling removes it,
// so the heap holds only the jobs waiting, not every time they were ever
// rescheduled (a heartbeat reschedules). The methods are the queue's,
// which finds a job's slot by its id.
type readyHeap struct{ items []readyEntry }

// place (re)places job j's entry at time at.
func (q *queue) place(j *Job, at Time) {
	e := readyEntry{at: at, job: j.ID}
	h := &q.ready
	if j.slot == 0 {
		h.items = append(h.items, e)
		q.up(len(h.items)-1, e)
		return
	}
	i := int(j.slot - 1)
	if e.before(&h.items[i]) {
		q.up(i, e)
	} else {
		q.down(i, e)
	}
}

// unplace removes job j's entry, if it has one.
func (q *queue) unplace(j *Job) {
	if j.slot == 0 {
		return
	}
	h := &q.ready
	i, last := int(j.slot-1), len(h.items)-1
	j.slot = 0
	moved := h.items[last]
	h.items = h.items[:last]
	if i == last {
		return
	}
	if i > 0 && moved.before(&h.items[(i-1)/2]) {
		q.up(i, moved)
	} else {
		q.down(i, moved)
	}
}

// popReady removes the earliest entry; the heap must not be empty.
func (q *queue) popReady() { q.unplace(q.jobs.at(int(q.ready.items[0].job - 1))) }

// set puts e at index i and tells its job.
func (q *queue) set(i int, e readyEntry) {
	q.ready.items[i] = e
	q.jobs.at(int(e.job - 1)).slot = int32(i + 1)
}

// up places e at the hole i or above it; down at i or below it.
func (q *queue) up(i int, e readyEntry) {
	items := q.ready.items
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&items[p]) {
			break
		}
		q.set(i, items[p])
		i = p
	}
	q.set(i, e)
}

func (q *queue) down(i int, e readyEntry) {
	items := q.ready.items
	n := len(items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && items[r].before(&items[l]) {
			c = r
		}
		if !items[c].before(&e) {
			break
		}
		q.set(i, items[c])
		i = c
	}
	q.set(i, e)
}

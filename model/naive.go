package model

import "strconv"

// The naive variants, each written the way the course documents describe
// the mistake. They are selected by name; nothing else in the model knows
// they exist. Each replaces exactly one seam of [Correct].

func init() {
	register("no-idempotency", "seed 000, opening incident",
		"the commit never looks the key up, so a redelivered job creates a second event and a second review",
		func(d *Design) { d.Commit = commitWithoutLookup })
	register("ack-before-commit", "seed 000 (worker.mjs order); seed 004, \"ack tardio\"",
		"the worker acks the queue before committing the result, so a crash in between loses the work",
		func(d *Design) {
			d.Protocol = Protocol{Steps: []Step{StepWork, StepAck, StepCommit}, Heartbeats: true}
		})
	register("no-fencing", "seed 000, queue.mjs (fencing token)",
		"ack, nack and heartbeat accept any fence, so a zombie worker whose lease was redistributed still acts on the job",
		func(d *Design) { d.FenceOK = func(*Job, uint64) bool { return true } })
	register("key-without-tenant", "seed 000, failure 4",
		"the idempotency key is built from the document id alone, so two tenants with the same document id share a key",
		func(d *Design) { d.BuildKey = keyFromDocumentOnly })
	register("dual-write", "seed 000, failure 3 (naiveDualWrite)",
		"the result goes to the database and the event straight to the broker, two calls with no outbox between them",
		func(d *Design) {
			d.Protocol = Protocol{Steps: []Step{StepWork, StepDBWrite, StepPublish, StepAck}, Heartbeats: true}
		})
	register("unbounded-retry", "seed 000, failure 1",
		"a transient failure is always worth another try: no attempt ceiling",
		func(d *Design) {
			d.Decide = decideWithoutCeiling
			d.Exhausted = func(*Job) Code { return CodeNone }
		})
	register("retry-permanent", "seed 003, poison messages; seed 000, retry-policy.mjs",
		"every error is retried as if transient, so a poison message burns all its attempts (and tokens) before the DLQ",
		func(d *Design) { d.Decide = decideEverythingTransient })
	register("consumer-no-dedupe", "seed 000, basic exercise (createDedupingConsumer)",
		"the consumer applies every delivery, so a republished or redelivered event is applied twice",
		func(d *Design) { d.Apply = applyEveryDelivery })
	register("mark-before-publish", "seed 000, relay (outbox.mjs); seed 004, outbox",
		"the relay marks a row published before publishing it, so a crash in between loses the event for good",
		func(d *Design) { d.Relay = []RelayStep{RelayMark, RelayPublish} })
	register("redrive-fresh-key", "seed 003, executeBulkRedrive (correlationId:redrive:N)",
		"a redrive enqueues the message again under a fresh key, so stages that had committed run and apply again",
		func(d *Design) { d.Redrive = redriveWithFreshKey })
	register("ignore-deadline", "seed 000, the four clocks (deadlineAt)",
		"leases and retries ignore deadlineAt, and a cancelled job can be brought back",
		func(d *Design) {
			d.PastDeadline = func(*Job, Time) bool { return false }
			d.Decide = decideWithoutDeadline
			d.Revivable = func(st State) bool { return st == Dead || st == Cancelled }
		})
	register("raw-error-in-dlq", "seed 000, DLQ with a redacted reason; seed 003, envelope",
		"the DLQ keeps the raw error message, which quotes the document",
		func(d *Design) { d.Sanitize = keepRawError })
	register("reply-before-enqueue", "seed 004, 202 only after the durable accept",
		"the API answers with a job id before the job is durably enqueued, so a crash in between leaves the client holding a job that never existed",
		func(d *Design) { d.Accept = []AcceptStep{AcceptReply, AcceptReceive, AcceptEnqueue} })
	register("reprocess-unaudited", "seed 000, DLQ reprocess and the runbook's open gap",
		"reprocess brings the dead job itself back, with no operator id, audit entry, new version or per-tenant rate limit",
		func(d *Design) { d.Reprocess = (*System).reprocessInPlace })
	register("no-heartbeat", "seed 000, the four clocks (heartbeat)",
		"long extractions run without heartbeats, so leases expire mid-work and another worker redoes (and pays for) the same extraction",
		func(d *Design) { d.Protocol = Protocol{Steps: StandardProtocol.Steps, Heartbeats: false} })
	register("status-leaks-tenant", "seed 004, status endpoint (\"sem revelar jobs de outra identidade\")",
		"the status endpoint answers for any job id, whichever tenant asks",
		func(d *Design) { d.Visible = func(*Job, string) bool { return true } })
	register("ignore-budget", "seed 004, retries with budget and limit",
		"retries count attempts but never the tokens already spent, so an expensive document keeps spending past its budget",
		func(d *Design) {
			d.Decide = decideWithoutBudget
			d.Exhausted = func(j *Job) Code {
				rich := *j
				rich.TokensSpent = 0
				return exhausted(&rich)
			}
		})
	register("unthrottled-redrive", "seed 003, bulk redrive with a token bucket; seed 004, \"não reenvie em massa\"",
		"bulk redrive sends everything back at once, with no rate limit",
		func(d *Design) { d.RedriveThrottled = false })
}

// commitWithoutLookup writes a result and a new event every time.
func commitWithoutLookup(s *System, r CommitRequest) (CommitResult, error) {
	return s.outbox.insert(s.Now(), r), nil
}

// keyFromDocumentOnly is the global key of failure 4: documentId:vN.
func keyFromDocumentOnly(_, documentID string, operationVersion int) (string, error) {
	return documentID + ":v" + strconv.Itoa(operationVersion), nil
}

// decideWithoutCeiling retries every transient error, whatever the attempt.
func decideWithoutCeiling(c RetryConfig, j *Job, err error, now Time, r Rand) Decision {
	if Classify(err) != Transient {
		return Decide(c, j, err, now, r)
	}
	delay, bound := Backoff(c, j.Attempt, r)
	return Decision{Outcome: RetryOutcome, Delay: delay, Bound: bound}
}

// decideEverythingTransient has no classifier: a schema error is retried.
func decideEverythingTransient(c RetryConfig, j *Job, err error, now Time, r Rand) Decision {
	return Decide(c, j, &WorkError{Code: CodeTransient}, now, r)
}

// decideWithoutDeadline is the policy with deadlineAt left out.
func decideWithoutDeadline(c RetryConfig, j *Job, err error, now Time, r Rand) Decision {
	far := *j
	far.DeadlineAt = now + 1<<62
	return Decide(c, &far, err, now, r)
}

// decideWithoutBudget is the policy with the token budget left out.
func decideWithoutBudget(c RetryConfig, j *Job, err error, now Time, r Rand) Decision {
	rich := *j
	rich.TokensSpent = 0
	return Decide(c, &rich, err, now, r)
}

// applyEveryDelivery is a consumer with no ledger of event ids.
func applyEveryDelivery(s *System, row OutboxRow) ApplyResult {
	s.consumer.record(s.Now(), row)
	return ApplyResult{Applied: true}
}

// redriveWithFreshKey is seed 003's bulk redrive: the envelope goes back as
// a new message keyed correlationId:redrive:N, so it starts from the first
// stage under a key nothing has been committed with.
func redriveWithFreshKey(j *Job) {
	base := j.Key
	if i := indexRedrive(base); i >= 0 {
		base = base[:i]
	}
	j.Key = base + ":redrive:" + strconv.Itoa(int(j.RedriveCount))
	j.Stage = StageIngest
}

func indexRedrive(key string) int {
	const marker = ":redrive:"
	for i := 0; i+len(marker) <= len(key); i++ {
		if key[i:i+len(marker)] == marker {
			return i
		}
	}
	return -1
}

// keepRawError stores what the parser said, document quote and all.
func keepRawError(env *Envelope, cause error) {
	if we, ok := cause.(*WorkError); ok {
		env.RawError = we.Raw
	}
}

// reprocessInPlace resurrects the dead job: same version, same key, no
// operator check, no audit entry, no rate limit.
func (s *System) reprocessInPlace(actor Actor, id JobID, _ string) (JobID, error) {
	j := s.job(id)
	if err := s.checkDead(EvReprocess, actor, j, id); err != nil {
		return 0, err
	}
	now := s.Now()
	j.State, j.Attempt, j.TokensSpent, j.VisibleAt, j.DeadlineAt = Pending, 0, 0, now, now+s.cfg.Deadline
	s.queue.live++
	s.schedule(j, now)
	if s.queue.head > j.ID {
		s.queue.head = j.ID
	}
	e := jobEvent(s.event(EvReprocess, actor), j)
	e.Other, e.N, e.OK = id, int64(j.Version), true
	s.emit(e)
	return id, nil
}

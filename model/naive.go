package model

import "strconv"

// The naive variants, each written the way the course documents describe
// the mistake. They are selected by name; nothing else in the model knows
// they exist.

func init() {
	register("no-idempotency", "seed 000, opening incident",
		"the commit never looks the key up, so a redelivered job creates a second event and a second review",
		func(d *Design) { d.Commit = commitWithoutLookup })
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
			d.Exhausted = func(*Job) bool { return false }
		})
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

package asynqchaos

import (
	"time"

	"github.com/durasim/durasim/target"
)

// Rules is what asynq promises, as the target checks read it
// ([target.Policy]): its rules as data, none written into the checks.
//
//   - A dequeue counts an attempt (the handler sees Retried+1); an
//     error retries the task after the servers' RetryDelayFunc (here a
//     fixed delay, cfg.RetryDelay), recording the error and counting the
//     attempt, and archives it (discarded) once Retried reaches MaxRetry.
//   - The recoverer takes back a task whose lease ended Grace ago as an
//     error (ErrLeaseExpired): the attempt stays counted, an error is
//     recorded; at the last attempt it archives the task. A lease is
//     30 s, extended every 5 s by the heartbeater while the server lives,
//     so a task is stuck RescueAfter (lease plus grace) after its last
//     extension.
//   - A task ID is unique while its task exists, in every state: pending,
//     scheduled, active, retry, archived, and completed while its
//     retention lasts (the runs keep them 24 h, so the checks can read the
//     final states back).
//   - An operator's retry (Inspector.RunTask) makes the task pending with
//     its Retried as it was.
//   - asynq has no snooze, no cancel outcome and no transactional
//     completion: the handlers report neither, and the feed says so.
func Rules(c Config) target.Policy {
	d := target.Time(c.RetryDelay / time.Nanosecond)
	return target.Policy{
		RescueAfter: target.Time((Lease + Grace) / time.Nanosecond),
		JobTimeout:  target.Time(c.JobTimeout / time.Nanosecond),
		Backoff:     target.Backoff{Base: d, Exponent: 0, Cap: d},
		Rescue:      target.RescueRule{Attempt: target.AttemptCounted, CountsError: true},
		Retry:       target.RetryKeepsAttempts,
		UniqueStates: []target.State{target.Available, target.Scheduled, target.Running, target.Retryable, target.Discarded,
			target.Completed},
	}
}

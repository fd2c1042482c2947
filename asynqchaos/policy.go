package asynqchaos

import (
	"runtime/debug"
	"time"

	"github.com/durasim/durasim/invariants"
	"github.com/durasim/durasim/target"
	"github.com/durasim/durasim/targetsim"
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

// Feed is what an asynq run's histories give the checks: a partial
// history (a kill may cut any line off, asynq's recoverer, forwarder and
// acks record nothing), the client's enqueues all recorded, no operator
// (so every operator retry is recorded: none), handlers that return nil
// or an error, one effect per document promised, no transactional
// completion, and asynq's rules.
func Feed(c Config) invariants.TargetFeed {
	return invariants.TargetFeed{Recorded: []target.OpKind{target.OpInsert, target.OpRetry},
		Outcomes: []target.Outcome{target.Done, target.Errored}, Drained: true, ExactlyOnce: true,
		EffectKinds: []string{targetsim.KindDoc}, Policy: Rules(c)}
}

// Version is the asynq release the binary was built with.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "github.com/hibiken/asynq" {
				if m.Replace != nil {
					return m.Replace.Version
				}
				return m.Version
			}
		}
	}
	return "(unknown)"
}
